#include "actors/consumer_actor.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "actors/breaker_actor.hpp"
#include "actors/delivery_pool.hpp"
#include "core/flow/offset_map.hpp"
#include "core/log/log_output.hpp"
#include "tests/actors/deterministic.hpp"
#include "tests/actors/fake_consumer_group.hpp"
#include "tests/actors/fake_poster.hpp"
#include "tests/actors/fake_router.hpp"
#include "topology/route_settings.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

const std::string topic = "brew.shipments.v1";
const partition_id p0{topic, 0};

// The Idempotency-Key of p0's record at `offset`: how the test names the request to answer.
std::string key(std::int64_t offset) { return topic + ":0:" + std::to_string(offset); }

std::vector<std::string> keys(std::int64_t from, std::int64_t to) {
  std::vector<std::string> out;
  for (auto offset = from; offset < to; ++offset) {
    out.push_back(key(offset));
  }
  return out;
}

// The consumer actor with the route's real delivery pool and breaker, the Kafka group and the
// receiver played by fakes: records go from the fake group through the actors to the fake
// client, and the test's answers come back as outcomes and offsets.
struct ConsumerActor : ::testing::Test {
  static constexpr auto poll_wait = 50ms;  // the empty poll's wait, in virtual time
  static constexpr auto drain_timeout = 10s;
  static constexpr auto revoke_drain_timeout = 2s;
  static constexpr auto commit_interval = 1s;

  static route_config default_route() {
    route_config route;
    route.name = "shipments";
    route.topic = topic;
    route.hmac_secret = "secret";
    return route;
  }

  explicit ConsumerActor(route_config route = default_route()) {
    metrics = std::make_shared<actors::route_metrics>();
    breaker =
        d.sys->spawn(actors::breaker_actor, route.name, std::string{},
                     breaker_settings{5, 15000ms, 1, /*gone_probe_interval=*/60000ms}, metrics);
    router = spawn_acknowledging_router(*d.sys);
    pool = d.sys->spawn(actors::delivery_pool, topology::delivery_pool_settings_of(route),
                        std::shared_ptr<http::poster>{http}, breaker, router, metrics,
                        std::uint64_t{1});
    caf::anon_send(breaker, actors::subscribe_atom::value, pool);
    d.run();
  }

  ~ConsumerActor() override {
    for (const auto& a : {consumer, pool, router, breaker}) {
      if (a) {
        caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
      }
    }
    d.run();
  }

  // Spawns the consumer (not detached, as topology does: the coordinator runs it); its first
  // poll takes what the group was scripted with.
  // `commit_after_records` 1: every outcome's commit point is committed at once, so a test reads
  // it without waiting for the commit interval.
  void start(std::int32_t source_partitions = 0, std::size_t commit_after_records = 1) {
    actors::consumer_actor_settings cs;
    cs.source_topic = topic;
    cs.source_partitions = source_partitions;
    cs.kafka.topics = {topic};
    cs.route = "shipments";
    cs.core.max_in_flight = 64;
    cs.drain_timeout = drain_timeout;
    cs.revoke_drain_timeout = revoke_drain_timeout;
    cs.commit_interval = commit_interval;
    cs.core.commit_after_records = commit_after_records;
    cs.open_consumer = group->factory();
    cs.empty_poll_wait = poll_wait;
    consumer = d.sys->spawn(actors::consumer_actor, cs, pool, metrics);
    d.run();
  }

  // The next poll of the loop (it waits poll_wait after an empty one).
  void next_poll() { d.advance(poll_wait); }

  void answer(std::int64_t offset, int status = 200) {
    http->answer(key(offset), status);
    d.run();
  }

  // The offset the group has committed for p0, -1: none; and that it has no other.
  std::int64_t committed() const {
    EXPECT_LE(group->committed.size(), 1U) << "a commit for another partition";
    const auto it = group->committed.find(p0);
    return it == group->committed.end() ? -1 : it->second.offset;
  }

  // The offsets the offset map committed for p0 says are done.
  done_offsets committed_map() const {
    done_offsets done;
    const auto it = group->committed.find(p0);
    if (it != group->committed.end()) {
      EXPECT_NE(decode_offset_map(it->second.metadata, it->second.offset, done),
                offset_map_read::malformed);
    }
    return done;
  }

  // The highest offset committed for p0 from the index `since` of the group's commits, -1: none.
  std::int64_t highest_commit(std::size_t since = 0) const {
    std::int64_t highest = -1;
    for (const auto& c : group->commits_of(p0, since)) {
      if (c.taken) {
        highest = std::max(highest, c.point.offset);
      }
    }
    return highest;
  }

  deterministic_system d;
  std::shared_ptr<fake_consumer_group> group = std::make_shared<fake_consumer_group>();
  std::shared_ptr<fake_poster> http = std::make_shared<fake_poster>();
  std::shared_ptr<actors::route_metrics> metrics;
  caf::actor breaker;
  caf::actor router;
  caf::actor pool;
  caf::actor consumer;
};

// -- revoke during delivery --------------------------------------------------------------------

TEST_F(ConsumerActor, ARevokeWaitsForItsRecordsInFlightThenCommitsWithTheOffsetMap) {
  group->assign({p0});
  group->fetch(p0, 0, 6);
  start();
  ASSERT_EQ(http->unanswered(), keys(0, 6));
  answer(0);
  answer(2);
  answer(4);
  EXPECT_EQ(highest_commit(), 1) << "0 is done; 1 is not, so 2 does not move the commit point";
  EXPECT_EQ(committed_map().runs(), (std::map<std::int64_t, std::int64_t>{{2, 3}, {4, 5}}))
      << "but travels with it";
  group->revoke({p0});
  next_poll();  // the revocation runs inside it
  EXPECT_TRUE(group->revoke_waiting) << "given up with 1, 3 and 5 in flight";
  answer(1);
  EXPECT_TRUE(group->revoke_waiting) << "3 and 5 still in flight";
  d.advance(revoke_drain_timeout);
  EXPECT_FALSE(group->revoke_waiting) << "the wait is bounded";
  EXPECT_EQ(committed(), 3) << "1 finished within the wait, and 2 was done";
  EXPECT_EQ(committed_map().runs(), (std::map<std::int64_t, std::int64_t>{{4, 5}}));
  // The outcomes of 3 and 5 come after the partition left this consumer.
  const auto at_revoke = group->commits.size();
  answer(3);
  answer(5);
  EXPECT_TRUE(group->commits_of(p0, at_revoke).empty())
      << "committed " << highest_commit(at_revoke) << " for a partition no longer owned";
  EXPECT_EQ(committed(), 3);
}

TEST_F(ConsumerActor, ARevokeWhoseRecordsFinishInTimeCommitsThemAllAtOnce) {
  group->assign({p0});
  group->fetch(p0, 0, 3);
  start();
  answer(0);
  group->revoke({p0});
  next_poll();
  ASSERT_TRUE(group->revoke_waiting);
  answer(2);
  answer(1);
  EXPECT_FALSE(group->revoke_waiting) << "nothing left in flight: no need to wait longer";
  EXPECT_EQ(committed(), 3);
  EXPECT_TRUE(committed_map().empty());
}

// The partition comes back to this consumer, which fetches 1 again from the commit: the late
// outcome of the first 1 does not stand for the second, still in flight.
TEST_F(ConsumerActor, ALateOutcomeFromBeforeARevokeIsNotCommittedWhenThePartitionComesBack) {
  group->assign({p0});
  group->fetch(p0, 0, 2);
  start();
  answer(0);
  ASSERT_EQ(highest_commit(), 1);
  group->revoke({p0});
  group->assign({p0});
  group->fetch(p0, 1, 2);
  next_poll();
  d.advance(revoke_drain_timeout);  // 1 does not finish in time
  next_poll();
  ASSERT_EQ(committed(), 1);
  ASSERT_EQ(http->unanswered(), (std::vector<std::string>{key(1), key(1)}));
  const auto reassigned = group->commits.size();
  answer(1);  // the oldest request: the one sent before the revoke
  EXPECT_EQ(highest_commit(reassigned), -1) << "the late outcome moved the commit point";
  answer(1);  // the one sent since
  EXPECT_EQ(highest_commit(reassigned), 2);
}

// -- a lost assignment --------------------------------------------------------------------------

// The session timed out (the broker was away): the records this consumer delivered meanwhile
// cannot be committed. Given the partition back with the commit it last saw, it does not deliver
// them again; only what was still in flight is fetched and sent again.
TEST_F(ConsumerActor, AfterALostAssignmentWhatWasDeliveredMeanwhileIsNotDeliveredAgain) {
  group->assign({p0});
  group->fetch(p0, 0, 4);
  start();
  answer(0);
  ASSERT_EQ(committed(), 1);
  group->revoke_lost({p0});
  next_poll();
  EXPECT_FALSE(group->revoke_waiting) << "a lost partition cannot be committed: no wait";
  answer(1);
  answer(2);  // delivered after the loss: nobody committed them
  group->assign({p0});
  group->fetch(p0, 1, 4);  // fetched again from the commit the group has
  next_poll();
  EXPECT_EQ(http->unanswered(), (std::vector<std::string>{key(3), key(3)}))
      << "1 and 2 were delivered: only 3, in flight at the loss, goes out again";
  EXPECT_EQ(http->posted.size(), 5U);
  d.advance(commit_interval);
  EXPECT_EQ(committed(), 3) << "what was delivered meanwhile is committed instead";
  answer(3);
  answer(3);
  EXPECT_EQ(committed(), 4);
  EXPECT_EQ(metrics->consumer[consumer_counter::already_done].load(), 2U);
}

TEST_F(ConsumerActor, AfterALostAssignmentACommitBySomeoneElseIsTrusted) {
  group->assign({p0});
  group->fetch(p0, 0, 3);
  start();
  answer(0);
  group->revoke_lost({p0});
  next_poll();
  answer(1);
  answer(2);
  group->committed[p0] = offset_commit{p0, 2, {}};  // another member had it meanwhile
  group->assign({p0});
  group->fetch(p0, 2, 3);
  next_poll();
  EXPECT_EQ(http->unanswered(), (std::vector<std::string>{key(2)}))
      << "the broker's commit point is the one: 2 is delivered again";
}

// -- commit cadence -----------------------------------------------------------------------------

TEST_F(ConsumerActor, WhatMovedIsCommittedWithinTheCommitInterval) {
  group->assign({p0});
  group->fetch(p0, 0, 3);
  start(0, /*commit_after_records=*/0);
  answer(0);
  answer(1);
  EXPECT_EQ(committed(), -1) << "committed before the interval without a burst";
  d.advance(commit_interval);
  EXPECT_EQ(committed(), 2);
}

// -- pause state across a rebalance -------------------------------------------------------------

// librdkafka 2.0.2 forgets a pause across revoke and assign (the wrapper resumes a revoked
// partition): the consumer applies its own pause state to every assignment.
TEST_F(ConsumerActor, APartitionAssignedAgainWhileTheRouteIsPausedIsPausedAtOnce) {
  group->assign({p0});
  start();
  caf::anon_send(consumer, actors::pause_atom::value, actors::pause_reason::breaker);
  d.run();
  ASSERT_EQ(group->paused.count(p0), 1U);
  group->revoke({p0});
  group->assign({p0});
  group->fetch(p0, 0, 2);
  next_poll();
  EXPECT_EQ(group->paused.count(p0), 1U) << "assigned again and fetching while the route is paused";
  next_poll();
  EXPECT_TRUE(http->posted.empty());
  caf::anon_send(consumer, actors::resume_atom::value, actors::pause_reason::breaker);
  d.run();
  EXPECT_EQ(group->paused.count(p0), 0U);
  next_poll();
  EXPECT_EQ(http->unanswered(), keys(0, 2));
}

// -- shutdown with records in flight -----------------------------------------------------------

TEST_F(ConsumerActor, ADrainWaitsForTheRecordsInFlightThenCommitsThemAndCloses) {
  group->assign({p0});
  group->fetch(p0, 0, 3);
  start();
  answer(0);
  caf::anon_send(consumer, actors::drain_atom::value);
  d.run();
  EXPECT_EQ(group->paused.count(p0), 1U) << "draining stops fetching";
  EXPECT_FALSE(group->closed) << "closed with 1 and 2 in flight";
  d.advance(drain_timeout / 2);
  EXPECT_FALSE(group->closed);
  answer(1);
  EXPECT_FALSE(group->closed) << "closed with 2 in flight";
  answer(2);
  EXPECT_TRUE(group->closed) << "every outcome came: the drain is over";
  EXPECT_EQ(committed(), 3);
}

TEST_F(ConsumerActor, ADrainPastItsDeadlineClosesWithoutStoringWhatIsNotDone) {
  group->assign({p0});
  group->fetch(p0, 0, 4);
  start();
  answer(0);
  answer(2);
  caf::anon_send(consumer, actors::drain_atom::value);
  d.run();
  d.advance(drain_timeout - 1ms);
  EXPECT_FALSE(group->closed) << "closed before the drain timeout";
  d.advance(1ms);
  ASSERT_TRUE(group->closed) << "still open at the drain timeout";
  EXPECT_EQ(committed(), 1) << "1 is not done";
  EXPECT_EQ(highest_commit(), 1) << "an offset past the undone 1 was committed";
  EXPECT_EQ(committed_map().runs(), (std::map<std::int64_t, std::int64_t>{{2, 3}}));
  const auto at_close = group->commits.size();
  answer(1);
  answer(3);
  EXPECT_EQ(group->commits.size(), at_close) << "committed after close";
}

// The group took the partition away while the drain waited for it: once the revoke's own wait is
// over, nothing is left to finish.
TEST_F(ConsumerActor, ARevokeDuringADrainClosesOnceTheRevokeIsOver) {
  group->assign({p0});
  group->fetch(p0, 0, 3);
  start();
  answer(0);
  caf::anon_send(consumer, actors::drain_atom::value);
  d.run();
  group->revoke({p0});
  next_poll();
  d.advance(revoke_drain_timeout);
  EXPECT_TRUE(group->closed) << "waited for the records of a partition no longer owned";
  EXPECT_EQ(committed(), 1);
}

// The line an operator reads at shutdown says what the drain left unfinished, not what was left
// once closing had revoked the partitions (nothing).
TEST_F(ConsumerActor, TheClosedLineCountsTheRecordsADrainLeftInFlight) {
  log::set_format(log::line_format::json);
  group->assign({p0});
  group->fetch(p0, 0, 4);
  start();
  answer(0);
  answer(2);
  caf::anon_send(consumer, actors::drain_atom::value);
  d.run();
  ::testing::internal::CaptureStderr();
  d.advance(drain_timeout);
  std::istringstream lines{::testing::internal::GetCapturedStderr()};
  ASSERT_TRUE(group->closed);
  nlohmann::json closed_line;
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.value("event", "") == "consumer closed") {
      closed_line = j;
    }
  }
  ASSERT_TRUE(closed_line.is_object()) << "no \"consumer closed\" line";
  EXPECT_EQ(closed_line.value("in_flight_left", -1), 2) << closed_line.dump();
  EXPECT_EQ(closed_line.value("fetched_not_handed_out", -1), 0) << closed_line.dump();
}

// -- the quota share ----------------------------------------------------------------------------

struct RateLimitedConsumerActor : ConsumerActor {
  static route_config limited() {
    auto r = default_route();
    r.rate_limit = rate_limit_settings{80, 80};
    return r;
  }
  RateLimitedConsumerActor() : ConsumerActor(limited()) {}
};

TEST_F(RateLimitedConsumerActor, EveryRebalanceTellsThePoolItsShareOfTheQuota) {
  const partition_id p1{topic, 1};
  group->assign({p0, p1});
  start(/*source_partitions=*/8);
  EXPECT_EQ(metrics->rate_limit.load(), 20) << "2 of 8 partitions: a quarter of 80/s";
  group->revoke({p1});
  next_poll();
  EXPECT_EQ(metrics->rate_limit.load(), 10) << "1 of 8";
  group->revoke({p0});
  next_poll();
  EXPECT_EQ(metrics->rate_limit.load(), 10) << "none: the share stays for what is in flight";
  group->assign({p0, p1, partition_id{topic, 2}, partition_id{topic, 3}});
  next_poll();
  EXPECT_EQ(metrics->rate_limit.load(), 40);
}

}  // namespace
}  // namespace courier::testing
