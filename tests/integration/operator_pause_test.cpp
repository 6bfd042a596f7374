// POST /routes/<name>/pause and /resume on the stand: the real pipeline on the mock cluster, the
// real receiver, the admin listener on an ephemeral port. A paused route keeps its partitions and
// polls on, fetches nothing while its lag grows, and its resume delivers every record once.

#include <cstdint>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/serving_admin.hpp"
#include "tests/integration/stand.hpp"
#include "tests/support/http_get.hpp"
#include "tests/support/metrics_text.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::StartsWith;
using nlohmann::json;

const std::string admin_token = "it-admin-token-5c1f";
const std::string pause_path = "/routes/shipments/pause";
const std::string resume_path = "/routes/shipments/resume";
const std::string paused_series = R"(courier_route_paused{route="shipments",reason="operator"})";

json route_state(std::uint16_t port) {
  return json::parse(http_get(port, "/state").body).at("routes").at(0);
}

// The route's source partitions in /state.
json source_partitions(const json& route, const std::string& topic) {
  json out = json::array();
  for (const auto& p : route.at("partitions")) {
    if (p.at("topic") == topic) {
      out.push_back(p);
    }
  }
  return out;
}

TEST(OperatorPause, APausedRouteFetchesNothingWhileItsLagGrowsAndItsResumeDeliversEachRecordOnce) {
  constexpr std::size_t records = 200;
  stand s{2};
  s.cfg.admin.token = admin_token;
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  serving_admin admin_plane{sys, p, s.cfg.admin.token};
  const auto port = admin_plane.port();
  ASSERT_TRUE(wait_until([&] { return http_get(port, "/readyz").status == 200; }, 30s))
      << http_get(port, "/readyz").body;
  EXPECT_TRUE(route_state(port).at("paused").is_null());

  // Refused without the token and with another one; the token is in no answer.
  const auto missing = http_post(port, pause_path);
  EXPECT_EQ(missing.status, 401) << missing.body;
  EXPECT_THAT(missing.www_authenticate, StartsWith("Bearer"));
  const auto wrong = http_post(port, pause_path, "Bearer not-the-token");
  EXPECT_EQ(wrong.status, 401) << wrong.body;
  EXPECT_THAT(wrong.www_authenticate, StartsWith("Bearer"));
  EXPECT_EQ(http_get(port, pause_path).status, 405);
  EXPECT_EQ(http_post(port, "/routes/payments/pause", "Bearer " + admin_token).status, 404);
  EXPECT_TRUE(route_state(port).at("paused").is_null()) << "a refused request changes nothing";

  const auto paused = http_post(port, pause_path, "Bearer " + admin_token);
  ASSERT_EQ(paused.status, 200) << paused.body;
  const auto answer = json::parse(paused.body);
  EXPECT_EQ(answer.at("route"), "shipments");
  EXPECT_EQ(answer.at("paused"), true);
  EXPECT_FALSE(answer.at("partitions_changed").empty()) << paused.body;
  for (const auto& body : {missing.body, wrong.body, paused.body}) {
    EXPECT_EQ(body.find(admin_token), std::string::npos) << body;
  }
  // The consumer set the flag and the reasons before it answered.
  auto route = route_state(port);
  EXPECT_EQ(route.at("paused"), "operator");
  EXPECT_EQ(sample_value(http_get(port, "/metrics").body, paused_series), 1.0);
  for (const auto& part : source_partitions(route, s.topic)) {
    EXPECT_EQ(part.at("assigned"), true) << part;
    EXPECT_THAT(part.at("paused_reasons"), Contains("operator")) << part;
  }

  // The records wait in Kafka: the lag shows all of them, while the consumer polls on (its
  // partitions stay assigned) and the receiver gets nothing.
  s.seed(records);
  std::uint64_t polls_at_full_lag = 0;
  ASSERT_TRUE(wait_until(
      [&] {
        route = route_state(port);
        std::int64_t lag = 0;
        for (const auto& part : source_partitions(route, s.topic)) {
          lag += part.at("lag").is_number() ? part.at("lag").get<std::int64_t>() : 0;
        }
        polls_at_full_lag = route.at("counters").at("polls").get<std::uint64_t>();
        return lag == static_cast<std::int64_t>(records);
      },
      30s))
      << route.dump();
  ASSERT_TRUE(wait_until(
      [&] {
        return route_state(port).at("counters").at("polls").get<std::uint64_t>() >=
               polls_at_full_lag + 10;
      },
      30s))
      << "the paused consumer stopped polling";
  route = route_state(port);
  EXPECT_EQ(s.receiver->snapshot().total, 0U) << "a paused route delivered";
  EXPECT_EQ(route.at("counters").at("consumed"), 0) << route.dump();
  EXPECT_EQ(route.at("paused"), "operator");
  EXPECT_EQ(route.at("assigned"), true);

  const auto resumed = http_post(port, resume_path, "Bearer " + admin_token);
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  EXPECT_EQ(json::parse(resumed.body).at("paused"), false);
  EXPECT_TRUE(route_state(port).at("paused").is_null());
  EXPECT_EQ(sample_value(http_get(port, "/metrics").body, paused_series), 0.0);

  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= records; }, 60s))
      << "delivered at the receiver: " << s.receiver->snapshot().ok;
  // Settled: every record consumed is accounted for and nothing is in flight.
  json settled;
  EXPECT_TRUE(wait_until(
      [&] {
        route = route_state(port);
        settled = source_partitions(route, s.topic);
        std::uint64_t consumed = 0;
        bool idle = true;
        for (const auto& part : settled) {
          consumed += part.at("accounting").at("consumed").get<std::uint64_t>();
          idle = idle && part.at("in_flight") == 0;
        }
        return idle && consumed == records &&
               route.at("counters").at("delivered").get<std::uint64_t>() == records;
      },
      10s))
      << route.dump();
  for (const auto& part : settled) {
    const auto& a = part.at("accounting");
    EXPECT_EQ(a.at("consumed"), a.at("delivered")) << part;
    EXPECT_EQ(a.at("retried"), 0) << part;
    EXPECT_EQ(a.at("dead_lettered"), 0) << part;
    EXPECT_EQ(a.at("released"), 0) << part;
    EXPECT_THAT(part.at("paused_reasons"), ::testing::Not(Contains("operator"))) << part;
  }
  const auto at_receiver = s.receiver->snapshot();
  EXPECT_EQ(at_receiver.total, records) << "one request per record";
  EXPECT_EQ(at_receiver.ok, records);
  EXPECT_EQ(at_receiver.duplicates, 0U);
  EXPECT_EQ(at_receiver.unique_keys, records);
  EXPECT_EQ(delivered_keys(*s.receiver).size(), records);
  EXPECT_EQ(route.at("counters").at("consumed"), records);

  p.stop();
  admin_plane.stop();
}

TEST(OperatorPause, WithoutAConfiguredTokenPauseIsForbidden) {
  stand s{1};
  ASSERT_TRUE(s.cfg.admin.token.empty());
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  serving_admin admin_plane{sys, p, s.cfg.admin.token};
  for (const std::string& authorization : {std::string{}, std::string{"Bearer anything"}}) {
    const auto r = http_post(admin_plane.port(), pause_path, authorization);
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_NE(r.body.find("admin.token"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find("--admin-token-file"), std::string::npos) << r.body;
  }
  EXPECT_EQ(http_post(admin_plane.port(), resume_path).status, 403);
  EXPECT_TRUE(route_state(admin_plane.port()).at("paused").is_null());
  p.stop();
  admin_plane.stop();
}

}  // namespace
}  // namespace courier::testing
