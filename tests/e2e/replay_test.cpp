// `courier replay` against a running pipeline on the real broker (Kafka answers offsets by time;
// librdkafka's mock cluster does not), with a route of two endpoints, each a real mock_webhook
// receiver (docs/endpoints.md, "Replay"): a window of record
// timestamps replayed to one endpoint reaches it again, exactly the records an independent read
// of the topic finds in the window for it, and nothing else anywhere; the route's committed
// offsets do not move; the same replay run again writes nothing.

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "app/replay_command.hpp"
#include "core/kafka/producer.hpp"
#include "core/model/idempotency_key.hpp"
#include "core/redrive/setup.hpp"  // now_ms
#include "core/redrive/time_arg.hpp"
#include "demo/topic_reader.hpp"
#include "mock_webhook/server.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "topology/topics.hpp"
#include "actors/messages.hpp"
#include "topology/pipeline.hpp"

namespace courier::e2e {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

constexpr int partitions = 2;
constexpr std::size_t n = 40;

// Record i: partner acme for even i, zoom for odd; its timestamp t0 + i seconds.
void produce(const std::string& topic, std::int64_t t0_ms) {
  kafka::producer p{kafka_environment::bootstrap()};
  for (std::size_t i = 0; i < n; ++i) {
    p.produce(topic, static_cast<std::int32_t>(i % partitions), std::nullopt,
              nlohmann::json{{"id", i}}.dump(),
              header_list{{"x-partner", i % 2 == 0 ? "acme" : "zoom"}},
              t0_ms + static_cast<std::int64_t>(i) * 1000);
  }
  p.flush(10s);
}

// One route on `topic`, acme for x-partner acme, analytics for every record; its topics made.
courier_config two_endpoints(const std::string& group, const std::string& topic,
                             const mock::server& acme, const mock::server& analytics) {
  const nlohmann::json route{{"name", "shipments"},
                             {"topic", topic},
                             {"hmac_secret", e2e_secret()},
                             {"allow_private_targets", true},
                             {"retry_tiers", {"300ms", "600ms"}},
                             {"endpoints",
                              {{{"name", "acme"},
                                {"url", acme.url()},
                                {"filter", {{"header", "x-partner"}, {"equals", "acme"}}}},
                               {{"name", "analytics"}, {"url", analytics.url()}}}}};
  auto cfg = parse_config({{"kafka", {{"brokers", kafka_environment::bootstrap()}}},
                           {"routes", nlohmann::json::array({route})}});
  cfg.kafka.group_id = group;
  cfg.kafka.properties = courier::testing::fast_group();
  cfg.kafka.properties["fetch.wait.max.ms"] = "50";
  validate(cfg);
  create_route_topics(cfg, partitions);
  return cfg;
}

TEST(Replay, AWindowReplayedToOneEndpointReachesItOnceMoreAndMovesNoCommittedOffset) {
  auto acme = in_process_receiver();
  auto analytics = in_process_receiver();
  const auto group = unique_name("replay-group");
  const auto topic = unique_name("replay");
  const auto cfg = two_endpoints(group, topic, *acme, *analytics);
  const std::int64_t t0 = redrive::now_ms() - 120'000;
  produce(topic, t0);

  caf::actor_system_config sys_cfg;
  actors::add_message_types(sys_cfg);
  caf::actor_system sys{sys_cfg};
  topology::pipeline p{sys, cfg, {}};
  ASSERT_TRUE(committed_reaches(group, topic, partitions, static_cast<std::int64_t>(n)));
  const auto acme_before = acme->attempts_by_key();
  const auto analytics_before = analytics->attempts_by_key();
  ASSERT_EQ(analytics_before.size(), n);

  // The window [t0 + 10 s, t0 + 20 s), as an independent reader of the topic finds it.
  const std::int64_t since = t0 + 10'000;
  const std::int64_t until = t0 + 20'000;
  std::set<std::string> window;
  for (const auto& r : demo::read_topic(kafka_environment::bootstrap(), topic, n, 20s)) {
    if (r.timestamp_ms >= since && r.timestamp_ms < until) {
      window.insert(idempotency_key_for(r));
    }
  }
  ASSERT_EQ(window.size(), 10U);

  app::replay_options o;
  o.route = "shipments";
  o.endpoint = "analytics";
  o.since = redrive::format_utc(since);
  o.until = redrive::format_utc(until);
  std::ostringstream dry;
  o.dry_run = true;
  ASSERT_EQ(app::run_replay(cfg, o, dry), 0) << dry.str();
  EXPECT_THAT(dry.str(), HasSubstr("total would write 10  already replayed 0")) << dry.str();

  std::ostringstream first;
  o.dry_run = false;
  ASSERT_EQ(app::run_replay(cfg, o, first), 0) << first.str();
  EXPECT_THAT(first.str(), HasSubstr("total written 10  already replayed 0")) << first.str();
  const auto replayed_twice = [&] {
    const auto now = analytics->attempts_by_key();
    std::size_t n_twice = 0;
    for (const auto& key : window) {
      n_twice += now.count(key) != 0 && now.at(key) == 2 ? 1 : 0;
    }
    return n_twice == window.size();
  };
  ASSERT_TRUE(wait_until(replayed_twice, 30s)) << "the window reaches analytics once more";

  std::ostringstream second;
  ASSERT_EQ(app::run_replay(cfg, o, second), 0) << second.str();
  EXPECT_THAT(second.str(), HasSubstr("total written 0  already replayed 10")) << second.str();

  p.stop();
  EXPECT_EQ(committed_total(group, topic, partitions), static_cast<std::int64_t>(n))
      << "the route's offsets did not move";
  EXPECT_EQ(acme->attempts_by_key(), acme_before) << "nothing replayed to the other endpoint";
  const auto after = analytics->attempts_by_key();
  for (const auto& [key, count] : after) {
    EXPECT_EQ(count, analytics_before.at(key) + (window.count(key) != 0 ? 1U : 0U)) << key;
  }
}

}  // namespace
}  // namespace courier::e2e
