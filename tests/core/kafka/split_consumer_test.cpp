#include "core/kafka/split_consumer.hpp"

#include "core/kafka/producer.hpp"
#include "core/kafka_mock/mock_cluster.hpp"
#include "tests/support/kafka_group.hpp"
#include "tests/support/wait_until.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace courier::kafka {
namespace {

using namespace std::chrono_literals;
using courier::testing::wait_until;

const std::string source = "shipments";
const std::vector<std::string> tiers{"shipments.retry-5s", "shipments.retry-30s",
                                     "shipments.retry-5m"};

std::vector<std::string> all_topics() {
  std::vector<std::string> all{source};
  all.insert(all.end(), tiers.begin(), tiers.end());
  return all;
}

void create_route_topics(mock_cluster& cluster, int partitions) {
  for (const auto& t : all_topics()) {
    cluster.create_topic(t, partitions);
  }
}

consumer_settings route_settings(const mock_cluster& cluster, const std::string& group) {
  consumer_settings s{
      cluster.bootstrap_servers(), group, all_topics(), courier::testing::fast_group(), {}};
  s.separate_member_topics = tiers;
  return s;
}

std::size_t count_of(const std::vector<partition_id>& ps, const std::string& topic) {
  return static_cast<std::size_t>(
      std::count_if(ps.begin(), ps.end(), [&](const partition_id& p) { return p.topic == topic; }));
}

// The number the assignor counts a member's balance by: partitions of every topic it holds.
std::size_t tier_count(const std::vector<partition_id>& ps) {
  return ps.size() - count_of(ps, source);
}

TEST(SplitConsumer, ARouteWithTiersIsTwoMembersAndOneWithoutIsOne) {
  mock_cluster cluster;
  create_route_topics(cluster, 2);
  auto with_tiers = open_group_member(route_settings(cluster, "g"), {});
  EXPECT_NE(dynamic_cast<split_consumer*>(with_tiers.get()), nullptr);
  consumer_settings plain{
      cluster.bootstrap_servers(), "g2", {source}, courier::testing::fast_group(), {}};
  auto without = open_group_member(plain, {});
  EXPECT_EQ(dynamic_cast<split_consumer*>(without.get()), nullptr);
}

TEST(SplitConsumer, ATopicInTwoSubscriptionsIsRefused) {
  mock_cluster cluster;
  create_route_topics(cluster, 1);
  EXPECT_THROW(split_consumer(route_settings(cluster, "g"), {{source, tiers[0]}, {tiers[0]}}, {}),
               std::invalid_argument);
}

// Cooperative-sticky, as courier's default: a second instance of the route gets half of the
// source's partitions (not all of them, as one member of source and tiers got with librdkafka
// 2.0.2's assignor), the first keeps the other half without ever giving them up, and every
// record of the source and of the tiers is read by one of them.
TEST(SplitConsumer, TwoInstancesShareTheSourceEquallyAndOnlyWhatMovesIsRevoked) {
  mock_cluster cluster;
  constexpr int partitions = 4;
  create_route_topics(cluster, partitions);
  {
    producer prod{cluster.bootstrap_servers()};
    for (const auto& t : all_topics()) {
      for (int p = 0; p < partitions; ++p) {
        for (int i = 0; i < 5; ++i) {
          prod.produce(t, p, "k", t + ":" + std::to_string(p) + ":" + std::to_string(i));
        }
      }
    }
    prod.flush(10s);
  }
  const auto settings = route_settings(cluster, "route");
  std::vector<partition_id> revoked_from_a;
  std::set<std::string> read;
  std::size_t duplicates = 0;
  const auto take = [&](std::vector<record> rs) {
    for (const auto& r : rs) {
      duplicates +=
          read.insert(r.topic + "/" + std::to_string(r.partition) + "/" + std::to_string(r.offset))
                  .second
              ? 0
              : 1;
    }
  };
  consumer::callbacks a_cb;
  a_cb.on_revoked = [&](const std::vector<partition_id>& ps, bool lost) {
    EXPECT_FALSE(lost);
    revoked_from_a.insert(revoked_from_a.end(), ps.begin(), ps.end());
    return revoke_timing::now;
  };
  a_cb.on_error = [](const std::string&) {};
  auto a = open_group_member(settings, a_cb);
  ASSERT_TRUE(wait_until([&] { return a->assignment().size() == 4 * partitions; }, 30s,
                         [&] { take(a->poll(testing::poll_timeout, testing::poll_batch)); }));
  const auto a_before = a->assignment();

  consumer::callbacks b_cb;
  b_cb.on_error = [](const std::string&) {};
  auto b = open_group_member(settings, b_cb);
  ASSERT_TRUE(wait_until(
      [&] {
        return count_of(a->assignment(), source) == partitions / 2 &&
               count_of(b->assignment(), source) == partitions / 2 &&
               a->assignment().size() + b->assignment().size() == 4 * partitions;
      },
      40s,
      [&] {
        take(a->poll(testing::poll_timeout / 2, testing::poll_batch));
        take(b->poll(testing::poll_timeout / 2, testing::poll_batch));
      }))
      << "a holds " << count_of(a->assignment(), source) << " source and "
      << tier_count(a->assignment()) << " tier partitions, b " << count_of(b->assignment(), source)
      << " and " << tier_count(b->assignment());
  // Only what moved was revoked: a's source partitions that it kept were never given up.
  EXPECT_EQ(count_of(revoked_from_a, source), static_cast<std::size_t>(partitions / 2));
  for (const auto& p : a->assignment()) {
    EXPECT_EQ(std::count(revoked_from_a.begin(), revoked_from_a.end(), p), 0)
        << p.topic << "[" << p.partition << "] was revoked and assigned again";
  }
  const std::size_t all = all_topics().size() * partitions * 5;
  wait_until([&] { return read.size() >= all; }, 20s,
             [&] {
               take(a->poll(testing::poll_timeout / 2, testing::poll_batch));
               take(b->poll(testing::poll_timeout / 2, testing::poll_batch));
             });
  EXPECT_EQ(read.size(), all) << "a record of the source or of a tier was never read";
  b->close();
  a->close();
}

// Commit, pause and resume reach the member that holds the topic: a paused tier partition and
// a paused source partition yield nothing while the others flow, and what was committed for
// both is what the group has afterwards.
TEST(SplitConsumer, CommitsAndPausesReachTheMemberOfTheirTopic) {
  mock_cluster cluster;
  create_route_topics(cluster, 1);
  std::vector<commit_outcome> outcomes;
  consumer::callbacks cb;
  cb.on_committed = [&](const std::vector<commit_outcome>& os) {
    outcomes.insert(outcomes.end(), os.begin(), os.end());
  };
  auto c = open_group_member(route_settings(cluster, "pauses"), cb);
  ASSERT_TRUE(
      wait_until([&] { return c->assignment().size() == 4; }, 30s,
                 [&] { static_cast<void>(c->poll(testing::poll_timeout, testing::poll_batch)); }));
  const std::vector<partition_id> paused{{source, 0}, {tiers[1], 0}};
  c->pause(paused);
  // Produced once paused: nothing of the paused partitions was fetched before.
  {
    producer prod{cluster.bootstrap_servers()};
    for (const auto& t : all_topics()) {
      for (int i = 0; i < 10; ++i) {
        prod.produce(t, 0, "k", std::to_string(i));
      }
    }
    prod.flush(10s);
  }
  std::map<std::string, std::size_t> per_topic;
  wait_until(
      [&] {
        return per_topic.size() >= 2 && per_topic[tiers[0]] >= 10 && per_topic[tiers[2]] >= 10;
      },
      20s,
      [&] {
        for (const auto& r : c->poll(testing::poll_timeout, testing::poll_batch)) {
          ++per_topic[r.topic];
        }
      });
  EXPECT_EQ(per_topic[source], 0U);
  EXPECT_EQ(per_topic[tiers[1]], 0U);
  EXPECT_EQ(per_topic[tiers[0]], 10U);
  EXPECT_EQ(per_topic[tiers[2]], 10U);
  c->resume(paused);
  wait_until([&] { return per_topic[source] >= 10 && per_topic[tiers[1]] >= 10; }, 20s,
             [&] {
               for (const auto& r : c->poll(testing::poll_timeout, testing::poll_batch)) {
                 ++per_topic[r.topic];
               }
             });
  EXPECT_EQ(per_topic[source], 10U);
  EXPECT_EQ(per_topic[tiers[1]], 10U);

  offset_commit of_source;
  of_source.partition = partition_id{source, 0};
  of_source.offset = 7;
  of_source.metadata = "s";
  offset_commit of_tier;
  of_tier.partition = partition_id{tiers[2], 0};
  of_tier.offset = 3;
  of_tier.metadata = "t";
  c->commit({of_source, of_tier}, commit_mode::sync);
  ASSERT_EQ(outcomes.size(), 2U);
  for (const auto& o : outcomes) {
    EXPECT_EQ(o.error, "") << o.partition.topic;
  }
  c->close();
  std::vector<assigned_partition> given;
  consumer::callbacks next_cb;
  next_cb.on_assigned = [&](const std::vector<assigned_partition>& ps) {
    given.insert(given.end(), ps.begin(), ps.end());
  };
  auto next = open_group_member(route_settings(cluster, "pauses"), next_cb);
  ASSERT_TRUE(wait_until(
      [&] { return given.size() == 4; }, 30s,
      [&] { static_cast<void>(next->poll(testing::poll_timeout, testing::poll_batch)); }));
  for (const auto& a : given) {
    if (a.partition.topic == source) {
      EXPECT_EQ(a.committed, 7);
      EXPECT_EQ(a.metadata, "s");
    } else if (a.partition.topic == tiers[2]) {
      EXPECT_EQ(a.committed, 3);
      EXPECT_EQ(a.metadata, "t");
    } else {
      EXPECT_EQ(a.committed, std::nullopt) << a.partition.topic;
    }
  }
  next->close();
}

}  // namespace
}  // namespace courier::kafka
