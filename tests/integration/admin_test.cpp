// The admin listener on the stand: the real pipeline on the mock cluster, the real receiver, the
// listener on an ephemeral port, scraped over HTTP with a Beast client.

#include <algorithm>
#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/version.hpp"
#include "tests/integration/serving_admin.hpp"
#include "tests/integration/stand.hpp"
#include "tests/support/courier_process.hpp"
#include "tests/support/http_get.hpp"
#include "tests/support/metrics_text.hpp"
#include "tests/support/temp_dir.hpp"
#include "admin/listener.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

const std::string delivered_series =
    R"(courier_deliveries_total{route="shipments",outcome="delivered"})";

TEST(AdminListener, ServesMetricsHealthReadinessAndStateOfARunningPipeline) {
  constexpr std::size_t records = 300;
  stand s{2};
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  serving_admin admin_plane{sys, p};
  ASSERT_NE(admin_plane.port(), 0) << "port 0 reports the port the system picked";
  const auto port = admin_plane.port();

  // Before anything was fetched every series exists with 0.
  const auto first = http_get(port, "/metrics");
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.content_type, "text/plain; version=0.0.4");
  EXPECT_EQ(sample_value(first.body, delivered_series), 0.0) << first.body;
  EXPECT_TRUE(sample_value(
      first.body, R"(courier_build_info{version=")" + std::string{courier::version} + "\"}"))
      << first.body;

  // Ready once the consumer got its partitions (the mock cluster's group join takes seconds).
  ASSERT_TRUE(wait_until([&] { return http_get(port, "/readyz").status == 200; }, 30s))
      << http_get(port, "/readyz").body;
  const auto health = http_get(port, "/healthz");
  EXPECT_EQ(health.status, 200) << health.body;
  EXPECT_EQ(nlohmann::json::parse(health.body).at("actors"), p.actors().size());

  s.seed(records);
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= records; }, 60s))
      << "delivered at the receiver: " << s.receiver->snapshot().ok;
  // The counter follows the outcome message: equal to the receiver's count once it arrived.
  std::string text;
  EXPECT_TRUE(wait_until(
      [&] {
        text = http_get(port, "/metrics").body;
        return sample_value(text, delivered_series) ==
               static_cast<double>(s.receiver->snapshot().ok);
      },
      10s))
      << "receiver: " << s.receiver->snapshot().ok << "\n"
      << text;
  EXPECT_EQ(sample_value(text, R"(courier_records_consumed_total{route="shipments"})"),
            static_cast<double>(records));
  EXPECT_EQ(sample_value(text, R"(courier_breaker_state{route="shipments"})"), 0.0);
  EXPECT_EQ(sample_value(text, R"(courier_delivery_answers_total{route="shipments",class="2xx"})"),
            static_cast<double>(records));
  EXPECT_EQ(sample_value(text, R"(courier_commit_failures_total{route="shipments"})"), 0.0);
  EXPECT_EQ(sample_value(text, R"(courier_delivery_latency_seconds_count{route="shipments"})"),
            static_cast<double>(records))
      << "every delivered record, from its Kafka timestamp to its 2xx";

  const auto state = http_get(port, "/state");
  EXPECT_EQ(state.status, 200);
  EXPECT_EQ(state.content_type, "application/json");
  const auto j = nlohmann::json::parse(state.body);
  EXPECT_EQ(j.at("routes").at(0).at("name"), "shipments");
  EXPECT_EQ(j.at("routes").at(0).at("counters").at("delivered"), s.receiver->snapshot().ok);
  EXPECT_EQ(j.at("routes").at(0).at("breaker").at("state"), "closed");
  EXPECT_EQ(state.body.find(test_secret()), std::string::npos)
      << "the secret leaked: " << state.body;

  // Per partition of the source topic (the tier topics are the route's too): the accounting
  // identity with nothing in flight, and once librdkafka's statistics (every 5 s) saw the commit,
  // the committed offset at the high watermark, lag 0. The partitions are published at most once
  // a second, so a snapshot may show every record consumed while some are still in flight: the
  // wait is for one that shows every record consumed and none in flight, and the identity is
  // checked on it.
  const auto& source = s.cfg.routes[0].topic;
  nlohmann::json parts;
  auto source_partitions = [&] {
    nlohmann::json out = nlohmann::json::array();
    parts = nlohmann::json::parse(http_get(port, "/state").body)["routes"][0]["partitions"];
    for (const auto& part : parts) {
      if (part.at("topic") == source) {
        out.push_back(part);
      }
    }
    return out;
  };
  nlohmann::json settled_source;
  EXPECT_TRUE(wait_until(
      [&] {
        std::uint64_t consumed = 0;
        bool settled = true;
        settled_source = source_partitions();
        for (const auto& part : settled_source) {
          consumed += part.at("accounting").at("consumed").get<std::uint64_t>();
          settled = settled && part.at("in_flight") == 0;
        }
        return settled && consumed == records;
      },
      10s))
      << parts;
  for (const auto& part : settled_source) {
    const auto& a = part.at("accounting");
    EXPECT_EQ(a.at("consumed").get<std::uint64_t>(),
              a.at("delivered").get<std::uint64_t>() + a.at("retried").get<std::uint64_t>() +
                  a.at("dead_lettered").get<std::uint64_t>() +
                  a.at("released").get<std::uint64_t>() + a.at("already_done").get<std::uint64_t>())
        << part;
    EXPECT_EQ(part.at("paused"), false) << part;
  }
  EXPECT_TRUE(wait_until(
      [&] {
        std::int64_t end = 0;
        const auto ps = source_partitions();
        for (const auto& part : ps) {
          if (!part.at("lag").is_number() || part.at("lag") != 0 ||
              part.at("committed_offset") != part.at("high_watermark")) {
            return false;
          }
          end += part.at("high_watermark").get<std::int64_t>();
        }
        return ps.size() == 2 && end == static_cast<std::int64_t>(records);
      },
      30s))
      << parts;
  text = http_get(port, "/metrics").body;
  EXPECT_EQ(sample_value(text, R"(courier_consumer_lag{route="shipments",topic=")" + source +
                                   R"(",partition="0"})"),
            0.0)
      << text;

  EXPECT_EQ(http_get(port, "/nothing").status, 404);

  // Drained and stopped: not ready (the consumer published draining), and not healthy (every
  // actor of the pipeline is down now).
  p.stop();
  const auto ready = http_get(port, "/readyz");
  EXPECT_EQ(ready.status, 503) << ready.body;
  EXPECT_NE(nlohmann::json::parse(ready.body).at("reason").get<std::string>().find("drain"),
            std::string::npos)
      << ready.body;
  const auto dead = http_get(port, "/healthz");
  EXPECT_EQ(dead.status, 503) << dead.body;
  EXPECT_FALSE(nlohmann::json::parse(dead.body).at("down").empty()) << dead.body;
  admin_plane.stop();
}

// The metrics to scale on: courier_scalable_lag leaves out the partitions the breaker or an
// operator holds (more instances would not deliver those records sooner), and
// courier_oldest_undelivered_age_seconds grows while a record waits and drops once it is
// delivered.
TEST(AdminListener, TheScalingMetricsLeaveOutHeldPartitionsAndAgeTheOldestRecord) {
  const std::string token = "it-scaling-token-5e1";
  stand s{2};
  s.receiver->set_chaos(mock::chaos{1.0, 0, 0ms, 0, false});  // 503 to everything
  s.route().breaker.trip_after = 3;
  s.route().breaker.open_timeout = 2s;
  s.cfg.admin.token = token;
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  serving_admin admin_plane{sys, p, s.cfg.admin.token};
  const auto port = admin_plane.port();
  ASSERT_TRUE(wait_until([&] { return http_get(port, "/readyz").status == 200; }, 30s));

  const std::string scalable = R"(courier_scalable_lag{route="shipments"})";
  const auto partition = [&](const std::string& name, int n) {
    return name + R"({route="shipments",topic=")" + s.topic + R"(",partition=")" +
           std::to_string(n) + "\"}";
  };
  const auto lag_of = [&](const std::string& body) {
    return sample_value(body, partition("courier_consumer_lag", 0)).value_or(0) +
           sample_value(body, partition("courier_consumer_lag", 1)).value_or(0);
  };
  const auto age = [&](const std::string& body) {
    return std::max(
        sample_value(body, partition("courier_oldest_undelivered_age_seconds", 0)).value_or(-1),
        sample_value(body, partition("courier_oldest_undelivered_age_seconds", 1)).value_or(-1));
  };
  s.seed(40);
  std::string body;
  ASSERT_TRUE(wait_until(
      [&] {
        body = http_get(port, "/metrics").body;
        return sample_value(
                   body,
                   R"(courier_partitions_paused_by_reason{route="shipments",reason="breaker"})")
                       .value_or(0) >= 1 &&
               lag_of(body) > 0;
      },
      30s))
      << body;
  EXPECT_EQ(sample_value(body, scalable), 0.0) << "the breaker holds every lagging partition";
  const auto waited = age(body);
  EXPECT_GT(waited, 0.0) << body;
  ASSERT_TRUE(wait_until([&] { return age(http_get(port, "/metrics").body) >= waited + 1; }, 10s))
      << "the oldest record's age grows while it waits";

  s.receiver->set_chaos(mock::chaos{});
  ASSERT_TRUE(wait_until([&] { return s.committed_total() == 40; }, 60s))
      << "committed: " << s.committed_total();
  ASSERT_TRUE(wait_until([&] { return age(http_get(port, "/metrics").body) == 0.0; }, 20s))
      << "delivered: nothing waits, nothing lags";

  ASSERT_EQ(http_post(port, "/routes/shipments/pause", "Bearer " + token).status, 200);
  s.seed(20);
  ASSERT_TRUE(wait_until(
      [&] {
        body = http_get(port, "/metrics").body;
        return lag_of(body) > 0;
      },
      30s))
      << body;
  EXPECT_EQ(sample_value(body, scalable), 0.0) << "an operator's pause is no load either";
  admin_plane.stop();
  p.stop();
}

TEST(AdminListener, HealthzNamesAnActorThatDied) {
  stand s{1};
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  serving_admin admin_plane{sys, p};
  ASSERT_EQ(http_get(admin_plane.port(), "/healthz").status, 200);
  {
    caf::scoped_actor self{sys};
    self->monitor(p.routes().front().endpoints.front().breaker);
    caf::anon_send_exit(p.routes().front().endpoints.front().breaker, caf::exit_reason::kill);
    self->receive([](const caf::down_msg&) {});
  }
  const auto h = http_get(admin_plane.port(), "/healthz");
  EXPECT_EQ(h.status, 503) << h.body;
  EXPECT_EQ(nlohmann::json::parse(h.body).at("down"),
            nlohmann::json::array({"breaker of route shipments"}))
      << h.body;
  admin_plane.stop();
  p.stop();
}

// `courier run` checks admin.listen before it starts anything: a port in use exits 2 naming the
// key, well before the broker checks (whose broker here does not even exist).
TEST(AdminListener, CourierRunExits2WhenTheAdminPortIsInUse) {
  admin::admin_listener taken{{"127.0.0.1", 0}};
  const temp_dir dir{"admin-port-in-use", temp_dir::keep_if_failed};
  const auto path = dir.path() / "courier.json";
  std::ofstream{path} << R"({"kafka": {"brokers": "127.0.0.1:1"}, "admin": {"listen": "127.0.0.1:)"
                      << taken.port() << R"("}, "routes": [{"name": "shipments",
    "topic": "brew.shipments.v1", "url": "http://127.0.0.1:8090/deliver"}]})";
  courier_process courier{
      {"run", "--config", path.string()}, {"HMAC_SECRET=x"}, (dir.path() / "log").string()};
  const auto code = courier.wait_exit(5s);
  ASSERT_TRUE(code.has_value()) << courier.log();
  EXPECT_EQ(*code, 2) << courier.log();
  EXPECT_NE(courier.log().find("admin.listen"), std::string::npos) << courier.log();
}

}  // namespace
}  // namespace courier::testing
