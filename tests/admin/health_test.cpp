#include "admin/health.hpp"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "actors/route_metrics.hpp"
#include "tests/admin/route_samples.hpp"

namespace courier::admin {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

TEST(AdminReadiness, NotReadyWhileTheBrokerIsUnreachable) {
  auto r = busy_route();
  r.broker_reachable = false;
  const auto v = readiness({r}, false);
  EXPECT_FALSE(v.ok);
  const auto body = json::parse(v.body);
  EXPECT_EQ(body.at("reason"), "the broker is unreachable");
  EXPECT_EQ(body.at("routes"), json::array({"shipments"}));
  r.broker_reachable = true;
  EXPECT_TRUE(readiness({r}, false).ok);
}

TEST(AdminReadiness, NotReadyBeforeTheFirstAssignment) {
  auto r = busy_route();
  r.assigned = false;
  const auto v = readiness({r}, false);
  EXPECT_FALSE(v.ok);
  const auto body = json::parse(v.body);
  EXPECT_THAT(body.at("reason").get<std::string>(), HasSubstr("assignment"));
  EXPECT_EQ(body.at("routes"), json::array({"shipments"}));
}

TEST(AdminReadiness, ReadyOnceEveryRouteWasAssigned) {
  auto other = busy_route();
  other.name = "invoices";
  EXPECT_TRUE(readiness({busy_route(), other}, false).ok);
  other.assigned = false;
  EXPECT_FALSE(readiness({busy_route(), other}, false).ok);
}

TEST(AdminReadiness, NotReadyWhileDrainingOrStopping) {
  auto r = busy_route();
  EXPECT_FALSE(readiness({r}, true).ok);
  r.draining = true;
  const auto v = readiness({r}, false);
  EXPECT_FALSE(v.ok);
  EXPECT_THAT(json::parse(v.body).at("reason").get<std::string>(), HasSubstr("drain"));
}

TEST(AdminLiveness, HealthyOnlyWhenEveryActorAnswered) {
  using kind = actor_answer::kind;
  EXPECT_TRUE(liveness({{"breaker of route a", kind::answered}}, std::chrono::seconds{1}).ok);
  const auto dead =
      liveness({{"breaker of route a", kind::answered}, {"consumer of route a", kind::down}},
               std::chrono::seconds{1});
  EXPECT_FALSE(dead.ok);
  EXPECT_EQ(json::parse(dead.body).at("down"), json::array({"consumer of route a"}));
  const auto stuck =
      liveness({{"delivery_pool of route a", kind::timed_out}}, std::chrono::seconds{1});
  EXPECT_FALSE(stuck.ok);
  EXPECT_THAT(json::parse(stuck.body).at("reason").get<std::string>(), HasSubstr("1000 ms"));
}

TEST(AdminLiveness, UnhealthyWhenARoutesConsumerHasNotPolledForTheBound) {
  using kind = actor_answer::kind;
  const std::vector<actor_answer> all_answered{{"consumer of route shipments", kind::answered}};
  auto r = busy_route();
  r.last_poll_steady_ms = 0;
  EXPECT_TRUE(liveness(all_answered, std::chrono::seconds{1}, {r}, 90'000).ok)
      << "not polled yet: starting";
  r.last_poll_steady_ms = 60'000;
  EXPECT_TRUE(liveness(all_answered, std::chrono::seconds{1}, {r}, 90'000).ok) << "30 s: the bound";
  const auto stalled = liveness(all_answered, std::chrono::seconds{1}, {r}, 90'001);
  EXPECT_FALSE(stalled.ok) << "answers its ping, but no longer polls Kafka";
  const auto body = json::parse(stalled.body);
  EXPECT_THAT(body.at("reason").get<std::string>(), HasSubstr("not polled"));
  EXPECT_EQ(body.at("not_polling").at(0).at("route"), r.name);
  r.draining = true;
  EXPECT_TRUE(liveness(all_answered, std::chrono::seconds{1}, {r}, 90'001).ok)
      << "a drain polls on its own terms";
}

}  // namespace
}  // namespace courier::admin
