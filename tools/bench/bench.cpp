// courier_bench: the embedded pipeline (mock cluster + real actor graph + mock_webhook over
// loopback) against a receiver of 0 ms and of 20 ms latency. Prints, per scenario: backlog
// deliveries/s, p50/p99 latency from record timestamp to receipt at a paced load, peak RSS.
// Not a test: it asserts nothing but that every record arrived.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "actors/messages.hpp"
#include "core/log/json_log.hpp"
#include "core/kafka/consumer.hpp"
#include "core/kafka_mock/mock_cluster.hpp"
#include "core/kafka/producer.hpp"
#include "mock_webhook/server.hpp"
#include "topology/runtime.hpp"
#include "demo/shipments.hpp"

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;
using namespace courier;

struct scenario_result {
  long latency_ms = 0;
  std::size_t backlog = 0;
  double backlog_seconds = 0;
  std::size_t paced = 0;
  double paced_rate = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  long peak_rss_mb = 0;
  bool complete = false;
};

bool wait_for(const std::function<bool()>& done, std::chrono::seconds timeout) {
  const auto deadline = clock_type::now() + timeout;
  while (clock_type::now() < deadline) {
    if (done()) {
      return true;
    }
    std::this_thread::sleep_for(5ms);
  }
  return done();
}

long peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  const auto idx = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  return v[idx];
}

// Record timestamps by idempotency key, read back from the topic itself.
std::map<std::string, std::int64_t> record_timestamps(const std::string& brokers,
                                                      const std::string& topic,
                                                      std::size_t expected) {
  std::map<std::string, std::int64_t> out;
  kafka::consumer c{kafka::consumer_settings{brokers, "bench-reader", {topic}, {}, {}}, {}};
  wait_for(
      [&] {
        for (auto& r : c.poll(100ms, 1000)) {
          out[to_string(r.position())] = r.timestamp_ms;
        }
        return out.size() >= expected;
      },
      60s);
  c.close();
  return out;
}

scenario_result run_scenario(std::chrono::milliseconds latency, std::size_t backlog,
                             // Distinct by role: the scenario's settings, one call per matrix
                             // cell. NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
                             std::size_t paced, double paced_rate, int partitions,
                             std::size_t in_flight) {
  scenario_result res;
  res.latency_ms = latency.count();
  res.backlog = backlog;
  res.paced = paced;
  res.paced_rate = paced_rate;
  const std::string topic = "brew.shipments.v1";

  kafka::mock_cluster cluster{1};
  mock::server_settings ws;
  ws.hmac_secret = "bench-secret";
  ws.initial.latency = latency;
  ws.threads = 1;
  mock::server receiver{ws};
  receiver.start();

  courier_config cfg;
  cfg.kafka.brokers = cluster.bootstrap_servers();
  cfg.kafka.group_id = "courier-bench";
  // The mock broker answers a fetch only after fetch.wait.max.ms when it has no new data.
  cfg.kafka.properties["fetch.wait.max.ms"] = "10";
  route_config route;
  route.name = "shipments";
  route.topic = topic;
  route.url = receiver.url();
  route.hmac_secret = "bench-secret";
  route.allow_private_targets = true;  // the receiver listens on loopback
  route.max_in_flight = in_flight;
  route.max_in_flight_per_partition = in_flight;
  route.http.max_connections = in_flight;
  cfg.routes.push_back(route);
  // The route's topics as `courier topics ensure` would create them: source, tiers, DLQ.
  for (const auto& t : topics_of(route).all()) {
    cluster.create_topic(t, partitions);
  }

  kafka::producer producer{cfg.kafka.brokers};
  demo::seed_shipments(producer, topic, backlog, 1);

  // Supervised like `courier run`, without an admin listener.
  std::optional<admin::admin_listener> no_admin;
  topology::runtime rt{cfg, no_admin};
  rt.start(topology::pipeline_options{10s, 1});

  // Backlog: from the first receipt to the last.
  const bool first = wait_for([&] { return receiver.snapshot().ok > 0; }, 60s);
  const auto t0 = clock_type::now();
  const bool drained = first && wait_for([&] { return receiver.snapshot().ok >= backlog; }, 300s);
  res.backlog_seconds = std::chrono::duration<double>(clock_type::now() - t0).count();

  // Paced: records produced at a steady rate while courier runs; latency = receipt - timestamp.
  const auto interval = std::chrono::duration<double>(1.0 / paced_rate);
  const auto paced_start = clock_type::now();
  for (std::size_t i = 0; i < paced; ++i) {
    std::this_thread::sleep_until(paced_start + std::chrono::duration_cast<clock_type::duration>(
                                                    interval * static_cast<double>(i)));
    producer.produce(topic, -1, demo::shipment_id(backlog + i),
                     demo::make_shipment(backlog + i, 1));
    producer.poll(0ms);
  }
  producer.flush(30s);
  const bool paced_done = wait_for([&] { return receiver.snapshot().ok >= backlog + paced; }, 120s);
  rt.stop();
  res.complete = drained && paced_done;

  const auto stamps = record_timestamps(cfg.kafka.brokers, topic, backlog + paced);
  // The paced records are the last `paced` by timestamp.
  std::vector<std::pair<std::int64_t, double>> by_stamp;
  for (const auto& a : receiver.arrivals()) {
    auto it = stamps.find(a.idempotency_key);
    if (it != stamps.end()) {
      const auto at_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(a.at.time_since_epoch()).count();
      by_stamp.emplace_back(it->second, static_cast<double>(at_ms - it->second));
    }
  }
  std::sort(by_stamp.begin(), by_stamp.end());
  std::vector<double> paced_latencies;
  for (std::size_t i = by_stamp.size() > paced ? by_stamp.size() - paced : 0; i < by_stamp.size();
       ++i) {
    paced_latencies.push_back(by_stamp[i].second);
  }
  res.p50_ms = percentile(paced_latencies, 0.50);
  res.p99_ms = percentile(paced_latencies, 0.99);
  res.peak_rss_mb = peak_rss_mb();
  receiver.stop();
  return res;
}

int run(int argc, char** argv) {
  CLI::App app{"courier_bench: the embedded pipeline against a 0 ms and a 20 ms receiver"};
  std::size_t backlog = 20000;
  std::size_t paced = 2000;
  double paced_rate = 1000;
  int partitions = 4;
  std::size_t in_flight = 256;
  std::vector<long> latencies{0, 20};
  app.add_option("--backlog", backlog, "records seeded before courier starts")
      ->check(CLI::Range(1, 200000));
  app.add_option("--paced", paced, "records produced at --rate while courier runs")
      ->check(CLI::Range(1, 100000));
  app.add_option("--rate", paced_rate, "records/s of the paced phase")->check(CLI::Range(1, 50000));
  app.add_option("--partitions", partitions)->check(CLI::Range(1, 64));
  app.add_option("--in-flight", in_flight, "max records in flight (and connections)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--latency-ms", latencies, "receiver latencies to run")->expected(1, 8);
  CLI11_PARSE(app, argc, argv);
  log::set_level("error");

  std::printf(
      "courier_bench: mock cluster (1 broker, %d partitions), mock_webhook on loopback "
      "(1 io thread, HMAC verified), %zu in flight, %u cores\n",
      partitions, in_flight, std::thread::hardware_concurrency());
  std::printf("%-10s %10s %14s %10s %10s %10s %10s %9s\n", "receiver", "backlog", "deliveries/s",
              "paced", "rate/s", "p50 ms", "p99 ms", "rss MB");
  bool all = true;
  for (const auto l : latencies) {
    const auto r = run_scenario(std::chrono::milliseconds{l}, backlog, paced, paced_rate,
                                partitions, in_flight);
    all = all && r.complete;
    std::printf("%7ld ms %10zu %14.0f %10zu %10.0f %10.1f %10.1f %9ld%s\n", r.latency_ms, r.backlog,
                static_cast<double>(r.backlog) / r.backlog_seconds, r.paced, r.paced_rate, r.p50_ms,
                r.p99_ms, r.peak_rss_mb, r.complete ? "" : "  INCOMPLETE");
    std::fflush(stdout);
  }
  return all ? 0 : 1;
}

}  // namespace

// Whatever escapes (CLI11 setup, the server or the scenario) is reported, not std::terminate.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "courier_bench: %s\n", e.what());
    return 2;
  }
}
