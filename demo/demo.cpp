#include "demo/demo.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <iostream>
#include <map>
#include <set>

#include "actors/messages.hpp"
#include "core/log/json_log.hpp"
#include "core/kafka_mock/mock_cluster.hpp"
#include "core/kafka/producer.hpp"
#include "mock_webhook/server.hpp"
#include "admin/listener.hpp"
#include "topology/runtime.hpp"
#include "demo/progress_bar.hpp"
#include "demo/shipments.hpp"
#include "demo/topic_reader.hpp"
#include "topology/topics.hpp"
#include "core/model/idempotency_key.hpp"

namespace courier::demo {

using admin::open_admin_listener;
using topology::pipeline_options;
using topology::required_topics;
namespace {

using clock = std::chrono::steady_clock;

struct demo_tally {
  std::size_t seeded = 0;
  mock::stats receiver{};
  std::uint64_t retried = 0;
  std::uint64_t trips = 0;
  std::uint64_t pauses = 0;
  std::uint64_t moved_to_tiers = 0;
  std::size_t in_dlq = 0;       // distinct keys
  std::size_t dlq_records = 0;  // records: more than keys means a record is there twice
  std::map<std::string, std::size_t> dlq_by_class;
  std::size_t in_both = 0;  // keys delivered and dead-lettered: must stay 0
  double elapsed_s = 0;
  double delivering_s = 0;  // from the first delivery to the last
};

void print_table(const demo_tally& t, bool accounted) {
  const double rate =
      t.delivering_s > 0 ? static_cast<double>(t.receiver.ok) / t.delivering_s : 0.0;
  std::printf("\ncourier demo: accounting\n");
  std::printf("  %-28s %12zu\n", "seeded", t.seeded);
  std::printf("  %-28s %12llu\n", "delivered (unique keys)",
              static_cast<unsigned long long>(t.receiver.ok));
  std::printf("  %-28s %12llu\n", "duplicates at the receiver",
              static_cast<unsigned long long>(t.receiver.duplicates));
  std::printf("  %-28s %12llu\n", "retried (attempts)", static_cast<unsigned long long>(t.retried));
  std::printf("  %-28s %12llu\n", "receiver answers 503",
              static_cast<unsigned long long>(t.receiver.fail_503));
  std::printf("  %-28s %12llu\n", "receiver answers 400",
              static_cast<unsigned long long>(t.receiver.fail_400));
  std::printf("  %-28s %12llu\n", "receiver timeouts",
              static_cast<unsigned long long>(t.receiver.fail_timeout));
  std::printf("  %-28s %12llu\n", "moved through retry tiers",
              static_cast<unsigned long long>(t.moved_to_tiers));
  const auto settled = static_cast<std::size_t>(t.receiver.ok) + t.in_dlq;
  std::printf("  %-28s %12zu\n", "still in retry tiers",
              t.seeded > settled ? t.seeded - settled : std::size_t{0});
  std::printf("  %-28s %12zu\n", "in the DLQ", t.in_dlq);
  if (t.dlq_records != t.in_dlq) {
    std::printf("  %-28s %12zu\n", "DLQ records (duplicates!)", t.dlq_records);
  }
  for (const auto& [cls, n] : t.dlq_by_class) {
    std::printf("    %-26s %12zu\n", cls.c_str(), n);
  }
  std::printf("  %-28s %12zu\n", "both delivered and in DLQ", t.in_both);
  std::printf("  %-28s %12llu\n", "breaker trips", static_cast<unsigned long long>(t.trips));
  std::printf("  %-28s %12llu\n", "pauses", static_cast<unsigned long long>(t.pauses));
  std::printf("  %-28s %10.2f s\n", "elapsed", t.elapsed_s);
  std::printf("  %-28s %12.0f\n", "deliveries/s (first to last)", rate);
  std::printf("  %-28s %s\n", "result",
              accounted ? "OK: every seeded record was delivered or is in the DLQ, once"
                        : "FAILED: not every seeded record was delivered or dead-lettered");
}

}  // namespace

int run_demo(const demo_options& options, courier_config cfg) {
  // librdkafka's mock cluster keeps about 5 MB per partition and drops older data; a shipment
  // is about 330 bytes.
  constexpr std::size_t records_per_partition = 12000;
  const auto most = records_per_partition * static_cast<std::size_t>(options.partitions);
  if (options.records > most) {
    throw config_error("--records",
                       "the embedded mock cluster keeps about 5 MB per partition: "
                       "at most " +
                           std::to_string(most) + " records with " +
                           std::to_string(options.partitions) + " partitions (raise --partitions)");
  }
  auto& route = cfg.routes.at(0);
  // Like `courier run`: a bad admin.listen or a port in use is a start-up error (exit 2).
  auto admin = open_admin_listener(cfg.admin);
  if (admin) {
    log::info("admin listener bound", {{"listen", cfg.admin.listen}, {"port", admin->port()}});
  }

  kafka::mock_cluster cluster{1};
  for (const auto& topic : required_topics(cfg)) {
    cluster.create_topic(topic, options.partitions);
  }
  cfg.kafka.brokers = cluster.bootstrap_servers();
  cfg.kafka.group_id = "courier-demo";
  // The mock broker answers a fetch only after fetch.wait.max.ms when it has no new data.
  cfg.kafka.properties.emplace("fetch.wait.max.ms", "10");

  mock::server_settings ws;
  ws.hmac_secret = route.hmac_secret;  // the receiver checks every signature
  ws.standard_webhooks.secrets = route.signing.secrets;
  ws.initial.fail_rate_503 = options.fail_rate_503;
  ws.initial.fail_rate_timeout = options.fail_rate_timeout;
  ws.initial.fail_rate_400 = options.fail_rate_400;
  ws.initial.latency = options.latency;
  ws.hang_for = route.http.timeout + std::chrono::seconds{1};
  ws.seed = options.seed;
  mock::server receiver{ws};
  receiver.start();
  route.url = receiver.url();
  if (options.outage.count() > 0) {
    // Held until the first record is fetched: the mock cluster's group join takes seconds.
    receiver.set_outage_until(clock::now() + std::chrono::hours{24});
  }

  log::info("demo seeding", {{"records", options.records},
                             {"topic", route.topic},
                             {"partitions", options.partitions},
                             {"brokers", cfg.kafka.brokers},
                             {"webhook", route.url}});
  {
    kafka::producer producer{cfg.kafka.brokers};
    seed_shipments(producer, route.topic, options.records, options.seed);
  }

  const auto started = clock::now();
  // Generous: every record may need a full attempt sequence and the outage must pass.
  const auto deadline = started + options.outage + std::chrono::seconds{120} +
                        std::chrono::milliseconds{options.records * 20};
  demo_tally tally;
  tally.seeded = options.records;
  bool accounted = false;
  std::optional<topology::stop_cause> stopped;
  {
    // Supervised like `courier run`: an actor that dies ends the demo, named, with exit 1.
    topology::runtime rt{cfg, admin};
    rt.start(pipeline_options{std::chrono::seconds{10}, options.seed});
    const auto& metrics = *rt.graph().routes().front().metrics;
    progress_bar bar{stderr, options.records, options.progress};
    bool outage_armed = options.outage.count() > 0;
    while (clock::now() < deadline) {
      if (outage_armed && metrics.consumer[consumer_counter::consumed] > 0) {
        receiver.set_outage_until(clock::now() + options.outage);
        log::info("demo outage started", {{"duration_ms", options.outage.count()}});
        outage_armed = false;
      }
      const auto s = receiver.snapshot();
      bar.update(s.ok, "breaker " + std::string{to_string(
                                        static_cast<breaker_state>(metrics.breaker_state.load()))});
      if (s.ok + metrics.deliveries[delivery_counter::dead_lettered] >= options.records) {
        break;
      }
      // The display refresh, which is also the supervisor's watch.
      if ((stopped = rt.watch().wait_for(std::chrono::milliseconds{100}))) {
        break;
      }
    }
    bar.finish();
    tally.elapsed_s = std::chrono::duration<double>(clock::now() - started).count();
    rt.stop();
    tally.receiver = receiver.snapshot();
    const auto arrivals = receiver.arrivals();
    if (arrivals.size() > 1) {
      const auto [first, last] = std::minmax_element(
          arrivals.begin(), arrivals.end(),
          [](const mock::arrival& a, const mock::arrival& b) { return a.at < b.at; });
      tally.delivering_s = std::chrono::duration<double>(last->at - first->at).count();
    }
    tally.retried = metrics.deliveries[delivery_counter::retries];
    tally.trips = metrics.actors[actors::route_counter::breaker_trips];
    tally.pauses = metrics.actors[actors::route_counter::pauses];
    tally.moved_to_tiers = metrics.deliveries[delivery_counter::retried];
    const auto dlq =
        read_topic(cfg.kafka.brokers, topics_of(route).dlq,
                   metrics.deliveries[delivery_counter::dead_lettered], std::chrono::seconds{30});
    std::set<std::string> delivered;
    for (const auto& a : receiver.arrivals()) {
      delivered.insert(a.idempotency_key);
    }
    std::set<std::string> dead;
    for (const auto& r : dlq) {
      const auto key = find_header(r.headers, idempotency_key_header);
      const auto cls = find_header(r.headers, "courier.error.class");
      dead.insert(key ? std::string{*key} : std::string{});
      ++tally.dlq_by_class[cls ? std::string{*cls} : std::string{"(none)"}];
      if (key && delivered.count(std::string{*key}) > 0) {
        ++tally.in_both;
      }
    }
    tally.in_dlq = dead.size();
    tally.dlq_records = dlq.size();
  }
  receiver.stop();
  if (stopped && stopped->what == topology::stop_cause::kind::actor_died) {
    std::fprintf(stderr, "courier demo: the %s died (%s); stopped\n", stopped->actor.c_str(),
                 stopped->reason.c_str());
    return 1;
  }
  accounted = tally.receiver.ok + tally.in_dlq == options.records && tally.in_both == 0 &&
              tally.dlq_records == tally.in_dlq;
  print_table(tally, accounted);
  return accounted ? 0 : 1;
}

}  // namespace courier::demo
