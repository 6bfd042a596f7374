#include "core/kafka/consumer.hpp"

#include "core/kafka/admin.hpp"
#include "core/kafka/client_log.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka_mock/mock_cluster.hpp"
#include "core/kafka/producer.hpp"
#include "tests/support/kafka_group.hpp"
#include "tests/support/wait_until.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <string_view>
#include <map>
#include <set>

namespace courier::kafka {
namespace {

using namespace std::chrono_literals;
using courier::testing::fast_group;
using courier::testing::wait_until;

using courier::testing::poll_batch;
using courier::testing::poll_timeout;

// Records consumed so far, by partition and offset.
struct consumed {
  std::map<std::int32_t, std::vector<record>> by_partition;
  std::size_t total = 0;
  std::size_t duplicates = 0;

  void add(std::vector<record> records) {
    for (record& r : records) {
      auto& part = by_partition[r.partition];
      const bool seen = std::any_of(part.begin(), part.end(),
                                    [&r](const record& o) { return o.offset == r.offset; });
      if (seen) {
        ++duplicates;
        continue;
      }
      part.push_back(std::move(r));
      ++total;
    }
  }

  std::vector<std::int64_t> offsets(std::int32_t partition) const {
    std::vector<std::int64_t> result;
    auto it = by_partition.find(partition);
    if (it != by_partition.end()) {
      for (const record& r : it->second) {
        result.push_back(r.offset);
      }
    }
    std::sort(result.begin(), result.end());
    return result;
  }
};

std::vector<std::int64_t> range(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> result;
  for (std::int64_t o = from; o < to; ++o) {
    result.push_back(o);
  }
  return result;
}

void produce_per_partition(const std::string& bootstrap, const std::string& topic, int partitions,
                           int per_partition) {
  producer prod{bootstrap};
  for (int i = 0; i < per_partition; ++i) {
    for (int p = 0; p < partitions; ++p) {
      prod.produce(topic, p, "k", std::to_string(p) + ":" + std::to_string(i));
    }
  }
  prod.flush(10s);
  ASSERT_EQ(prod.acked(), static_cast<std::uint64_t>(partitions * per_partition));
}

TEST(KafkaConsumer, ConsumesEveryRecordExactlyOnceWithHeadersIntact) {
  mock_cluster cluster;
  cluster.create_topic("orders", 4);
  constexpr int n = 500;
  {
    producer prod{cluster.bootstrap_servers()};
    for (int i = 0; i < n; ++i) {
      const std::string idx = std::to_string(i);
      prod.produce("orders", i % 4, "key-" + idx, "value-" + idx,
                   {{"idx", idx}, {"trace", "t-" + idx}, {"dup", "a"}, {"dup", ""}});
    }
    prod.flush(10s);
    ASSERT_EQ(prod.acked(), static_cast<std::uint64_t>(n));
  }

  std::vector<std::string> errors;
  consumer cons{{cluster.bootstrap_servers(), "exactly-once", {"orders"}, fast_group(), {}},
                {nullptr, nullptr, nullptr,
                 [&errors](const std::string& e) { errors.push_back(e); }, nullptr, nullptr}};
  consumed got;
  ASSERT_TRUE(wait_until([&] { return got.total >= n; }, 30s,
                         [&] { got.add(cons.poll(poll_timeout, poll_batch)); }))
      << "consumed " << got.total;
  // Nothing more arrives: every record came exactly once.
  wait_until([] { return false; }, 300ms, [&] { got.add(cons.poll(poll_timeout, poll_batch)); });
  EXPECT_EQ(got.total, static_cast<std::size_t>(n));
  EXPECT_EQ(got.duplicates, 0U);

  for (std::int32_t p = 0; p < 4; ++p) {
    EXPECT_EQ(got.offsets(p), range(0, n / 4)) << "partition " << p;
    for (const record& r : got.by_partition[p]) {
      ASSERT_TRUE(r.key.has_value());
      const std::string idx = r.key->substr(4);
      EXPECT_EQ(r.topic, "orders");
      EXPECT_EQ(std::stoi(idx) % 4, p);
      EXPECT_EQ(r.value, "value-" + idx);
      const header_list expected{{"idx", idx}, {"trace", "t-" + idx}, {"dup", "a"}, {"dup", ""}};
      EXPECT_EQ(r.headers, expected);
      EXPECT_GT(r.timestamp_ms, 0);
    }
  }
  cons.close();
}

TEST(KafkaConsumer, NullKeyAndNullHeaderValueArriveAsAbsentAndEmpty) {
  mock_cluster cluster;
  cluster.create_topic("orders", 1);
  {
    producer prod{cluster.bootstrap_servers()};
    headers_ptr hdrs{rd_kafka_headers_new(1)};
    ASSERT_EQ(rd_kafka_header_add(hdrs.get(), "empty", -1, nullptr, 0), RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_vu_t vus[3]{};
    vus[0].vtype = RD_KAFKA_VTYPE_TOPIC;
    vus[0].u.cstr = "orders";
    vus[1].vtype = RD_KAFKA_VTYPE_PARTITION;
    vus[1].u.i32 = 0;
    vus[2].vtype = RD_KAFKA_VTYPE_HEADERS;
    vus[2].u.headers = hdrs.get();
    error_ptr error{rd_kafka_produceva(prod.raw(), vus, 3)};
    ASSERT_FALSE(error) << rd_kafka_error_string(error.get());
    static_cast<void>(hdrs.release());
    prod.flush(10s);
  }
  consumer cons{{cluster.bootstrap_servers(), "nulls", {"orders"}, fast_group(), {}}, {}};
  std::vector<record> got;
  ASSERT_TRUE(wait_until([&] { return !got.empty(); }, 30s,
                         [&] { got = cons.poll(poll_timeout, poll_batch); }));
  ASSERT_EQ(got.size(), 1U);
  EXPECT_FALSE(got[0].key.has_value());
  EXPECT_EQ(got[0].value, "");
  EXPECT_EQ(got[0].headers, (header_list{{"empty", ""}}));
}

TEST(KafkaConsumer, TheNextMemberStartsAtTheCommittedOffsetsAndReadsTheirMetadata) {
  mock_cluster cluster;
  cluster.create_topic("orders", 4);
  produce_per_partition(cluster.bootstrap_servers(), "orders", 4, 40);
  const consumer_settings settings{
      cluster.bootstrap_servers(), "resume", {"orders"}, fast_group(), {}};
  // Done: p0 [0,10), p1 everything, p2 [0,25), p3 nothing.
  const std::map<std::int32_t, std::int64_t> commit_points{{0, 10}, {1, 40}, {2, 25}};
  {
    std::vector<commit_outcome> outcomes;
    consumer::callbacks cb;
    cb.on_committed = [&](const std::vector<commit_outcome>& os) {
      outcomes.insert(outcomes.end(), os.begin(), os.end());
    };
    consumer first{settings, cb};
    consumed got;
    ASSERT_TRUE(wait_until([&] { return got.total >= 160; }, 30s,
                           [&] { got.add(first.poll(poll_timeout, poll_batch)); }));
    std::vector<offset_commit> commits;
    for (const auto& [p, next] : commit_points) {
      commits.push_back({{"orders", p}, next, "map of p" + std::to_string(p)});
    }
    first.commit(commits, commit_mode::sync);
    ASSERT_EQ(outcomes.size(), 3U) << "sync: reported before commit() returns";
    for (const auto& o : outcomes) {
      EXPECT_EQ(o.error, "") << o.partition.partition;
      EXPECT_FALSE(o.metadata_dropped);
    }
    first.close();
  }
  EXPECT_EQ(committed_offsets(cluster.bootstrap_servers(), "resume", "orders", 4, 5s),
            commit_points);

  std::vector<assigned_partition> given;
  consumer::callbacks cb;
  cb.on_assigned = [&](const std::vector<assigned_partition>& ps) {
    given.insert(given.end(), ps.begin(), ps.end());
  };
  consumer second{settings, cb};
  consumed got;
  constexpr std::size_t not_done = 30 + 0 + 15 + 40;
  ASSERT_TRUE(wait_until([&] { return got.total >= not_done; }, 30s,
                         [&] { got.add(second.poll(poll_timeout, poll_batch)); }))
      << "consumed " << got.total;
  wait_until([] { return false; }, 300ms, [&] { got.add(second.poll(poll_timeout, poll_batch)); });
  EXPECT_EQ(got.offsets(0), range(10, 40));
  EXPECT_EQ(got.offsets(1), range(40, 40));
  EXPECT_EQ(got.offsets(2), range(25, 40));
  EXPECT_EQ(got.offsets(3), range(0, 40));
  EXPECT_EQ(got.duplicates, 0U);
  ASSERT_EQ(given.size(), 4U);
  for (const auto& a : given) {
    const auto it = commit_points.find(a.partition.partition);
    if (it == commit_points.end()) {
      EXPECT_EQ(a.committed, std::nullopt) << "p3: nothing committed";
      EXPECT_EQ(a.metadata, "");
    } else {
      EXPECT_EQ(a.committed, it->second) << a.partition.partition;
      EXPECT_EQ(a.metadata, "map of p" + std::to_string(a.partition.partition));
    }
  }
}

TEST(KafkaConsumer, PausedPartitionYieldsNothingWhileOthersFlowAndResumeDeliversIt) {
  mock_cluster cluster;
  cluster.create_topic("orders", 4);
  consumer cons{{cluster.bootstrap_servers(), "pause", {"orders"}, fast_group(), {}}, {}};
  consumed got;
  ASSERT_TRUE(wait_until([&] { return cons.assignment().size() == 4; }, 30s,
                         [&] { got.add(cons.poll(poll_timeout, poll_batch)); }));
  const partition_id p0{"orders", 0};
  cons.pause({p0});
  EXPECT_NO_THROW(cons.resume({{"orders", 3}}));  // never paused: a no-op, not a rewind

  produce_per_partition(cluster.bootstrap_servers(), "orders", 4, 30);
  ASSERT_TRUE(wait_until([&] { return got.total >= 90; }, 10s,
                         [&] { got.add(cons.poll(poll_timeout, poll_batch)); }));
  wait_until([] { return false; }, 500ms, [&] { got.add(cons.poll(poll_timeout, poll_batch)); });
  EXPECT_TRUE(got.offsets(0).empty());
  EXPECT_EQ(got.total, 90U);

  cons.resume({p0});
  ASSERT_TRUE(wait_until([&] { return got.total >= 120; }, 10s,
                         [&] { got.add(cons.poll(poll_timeout, poll_batch)); }));
  EXPECT_EQ(got.offsets(0), range(0, 30));
  EXPECT_EQ(got.duplicates, 0U);
}

// Cooperative-sticky: a member joining takes half of the partitions, and the first member gives
// up only those; the two it keeps are never revoked. And a revoke the owner answers `later`
// holds the partitions with it (the newcomer waits for them) until complete_revoke().
TEST(KafkaConsumer, AJoinMovesOnlyThePartitionsThatMoveAndWaitsForADeferredRevoke) {
  mock_cluster cluster;
  cluster.create_topic("orders", 4);
  auto props = fast_group();
  props["partition.assignment.strategy"] = "cooperative-sticky";
  const consumer_settings settings{cluster.bootstrap_servers(), "split", {"orders"}, props, {}};
  std::vector<partition_id> revoked_from_a;
  bool defer = false;
  consumer::callbacks a_callbacks;
  a_callbacks.on_revoked = [&](const std::vector<partition_id>& ps, bool lost) {
    EXPECT_FALSE(lost);
    revoked_from_a.insert(revoked_from_a.end(), ps.begin(), ps.end());
    return defer ? revoke_timing::later : revoke_timing::now;
  };
  a_callbacks.on_error = [](const std::string&) {};
  consumer a{settings, a_callbacks};
  ASSERT_TRUE(wait_until([&] { return a.assignment().size() == 4; }, 30s,
                         [&] { static_cast<void>(a.poll(poll_timeout, poll_batch)); }));

  defer = true;
  consumer b{settings, {}};
  ASSERT_TRUE(wait_until([&] { return revoked_from_a.size() == 2; }, 30s,
                         [&] {
                           static_cast<void>(a.poll(poll_timeout / 2, poll_batch));
                           static_cast<void>(b.poll(poll_timeout / 2, poll_batch));
                         }));
  // Deferred: a still holds all four, and b gets none of them meanwhile.
  for (int i = 0; i < 5; ++i) {
    static_cast<void>(a.poll(poll_timeout / 2, poll_batch));
    static_cast<void>(b.poll(poll_timeout / 2, poll_batch));
  }
  EXPECT_EQ(a.assignment().size(), 4U);
  EXPECT_TRUE(b.assignment().empty());

  a.complete_revoke();
  ASSERT_TRUE(wait_until([&] { return a.assignment().size() == 2 && b.assignment().size() == 2; },
                         30s,
                         [&] {
                           static_cast<void>(a.poll(poll_timeout / 2, poll_batch));
                           static_cast<void>(b.poll(poll_timeout / 2, poll_batch));
                         }));
  EXPECT_EQ(revoked_from_a.size(), 2U) << "only the two that moved";
  const auto kept = a.assignment();
  for (const auto& p : kept) {
    EXPECT_EQ(std::count(revoked_from_a.begin(), revoked_from_a.end(), p), 0) << p.partition;
  }
}

TEST(KafkaConsumer, WhatOnRevokedCommitsIsCommittedWhenTheConsumerCloses) {
  mock_cluster cluster;
  cluster.create_topic("orders", 4);
  produce_per_partition(cluster.bootstrap_servers(), "orders", 4, 10);
  consumer* self = nullptr;
  std::vector<partition_id> revoked;
  consumer::callbacks cb;
  cb.on_revoked = [&](const std::vector<partition_id>& ps, bool /*lost*/) {
    std::vector<offset_commit> commits;
    for (const partition_id& p : ps) {
      revoked.push_back(p);
      commits.push_back({p, 7, {}});
    }
    self->commit(commits, commit_mode::sync);
    return revoke_timing::later;  // closing: given up at once all the same
  };
  consumer cons{{cluster.bootstrap_servers(), "final", {"orders"}, fast_group(), {}}, cb};
  self = &cons;
  consumed got;
  ASSERT_TRUE(wait_until([&] { return got.total >= 40; }, 30s,
                         [&] { got.add(cons.poll(poll_timeout, poll_batch)); }));
  cons.close();
  EXPECT_EQ(revoked.size(), 4U);
  const std::map<std::int32_t, std::int64_t> seven{{0, 7}, {1, 7}, {2, 7}, {3, 7}};
  EXPECT_EQ(committed_offsets(cluster.bootstrap_servers(), "final", "orders", 4, 5s), seven);
}

// What librdkafka has in effect for `name` in this consumer.
std::string effective(consumer& c, const char* name) {
  std::array<char, 64> value{};
  std::size_t size = value.size();
  EXPECT_EQ(rd_kafka_conf_get(rd_kafka_conf(c.raw()), name, value.data(), &size), RD_KAFKA_CONF_OK)
      << name;
  return value.data();
}

TEST(KafkaConsumer, FetchResponsesAreBoundedUnlessTheConfigSaysOtherwise) {
  mock_cluster cluster;
  cluster.create_topic("orders", 1);
  const auto fetch_max_bytes = [&](std::map<std::string, std::string> extra) {
    consumer cons{{cluster.bootstrap_servers(), "bounds", {"orders"}, std::move(extra), {}}, {}};
    return effective(cons, "fetch.max.bytes");
  };
  // courier's default, not librdkafka's 50 MiB: peak memory then does not grow with the
  // partitions fetched.
  EXPECT_EQ(fetch_max_bytes({}), "8388608");
  // librdkafka refuses a fetch.max.bytes below message.max.bytes: the default makes room.
  EXPECT_EQ(fetch_max_bytes({{"message.max.bytes", "10000000"}}), "10000000");
  EXPECT_EQ(fetch_max_bytes({{"message.max.bytes", "1000000"}}), "8388608");
  EXPECT_EQ(fetch_max_bytes({{"fetch.max.bytes", "2097152"}}), "2097152");
  // Where the config's own pair cannot work, creating the consumer says why.
  try {
    fetch_max_bytes({{"fetch.max.bytes", "2097152"}, {"message.max.bytes", "4000000"}});
    ADD_FAILURE() << "a fetch.max.bytes below message.max.bytes was accepted";
  } catch (const kafka_error& e) {
    EXPECT_NE(std::string(e.what()).find("fetch.max.bytes"), std::string::npos) << e.what();
  }
}

TEST(KafkaConsumer, CommitOfNothingIsFine) {
  mock_cluster cluster;
  cluster.create_topic("orders", 1);
  consumer cons{{cluster.bootstrap_servers(), "nothing", {"orders"}, fast_group(), {}}, {}};
  EXPECT_NO_THROW(cons.commit({}, commit_mode::sync));
  ASSERT_TRUE(wait_until([&] { return cons.assignment().size() == 1; }, 30s,
                         [&] { static_cast<void>(cons.poll(poll_timeout, poll_batch)); }));
  EXPECT_NO_THROW(cons.commit({}, commit_mode::async));
  EXPECT_NO_THROW(cons.close());
  EXPECT_NO_THROW(cons.close());
}

TEST(KafkaConsumer, AnExceptionFromACallbackSurfacesFromPoll) {
  mock_cluster cluster;
  cluster.create_topic("orders", 1);
  consumer::callbacks cb;
  cb.on_assigned = [](const std::vector<assigned_partition>&) {
    throw std::runtime_error("owner failed in on_assigned");
  };
  consumer cons{{cluster.bootstrap_servers(), "throws", {"orders"}, fast_group(), {}}, cb};
  bool thrown = false;
  ASSERT_TRUE(wait_until([&] { return thrown; }, 30s,
                         [&] {
                           try {
                             static_cast<void>(cons.poll(poll_timeout, poll_batch));
                           } catch (const std::runtime_error& e) {
                             thrown = std::string(e.what()) == "owner failed in on_assigned";
                           }
                         }));
  EXPECT_EQ(cons.assignment().size(), 1U);  // the rebalance itself completed
}

}  // namespace
}  // namespace courier::kafka

namespace courier::kafka {
namespace {

std::atomic<bool> join_answered{false};
void note_join(int /*level*/, std::string_view facility, std::string_view /*client*/,
               std::string_view message) {
  if (facility == "JOINGROUP" && message.find("JoinGroup response") != std::string_view::npos &&
      message.find("(no error)") != std::string_view::npos) {
    join_answered.store(true);
  }
}

// Joins a mock group whose SyncGroup is answered 5 s late, destroys the consumer in between
// and exits 0 (3 if the JoinGroup was not answered).
void close_before_first_assignment() {
  mock_cluster cluster;
  cluster.create_topic("shipments", 1);
  constexpr std::int16_t sync_group = 14;
  constexpr int late_ms = 5000;
  rd_kafka_mock_broker_push_request_error_rtts(cluster.raw(), 1, sync_group, 1,
                                               RD_KAFKA_RESP_ERR_NO_ERROR, late_ms);
  set_client_log_sink(&note_join);
  auto extra = fast_group();
  extra["debug"] = "cgrp";
  bool joined = false;
  {
    consumer c{consumer_settings{cluster.bootstrap_servers(), "g", {"shipments"}, extra, {}}, {}};
    joined = wait_until(
        [&] {
          c.poll(poll_timeout, poll_batch);
          return join_answered.load();
        },
        20s);
  }
  std::exit(joined ? 0 : 3);
}

// librdkafka 2.0.2 aborts destroying a member whose JoinGroup chose the cooperative-sticky
// assignor but that closed before its SyncGroup assigned it anything (assignor_state_watch.hpp):
// a stop while another member joins. Here the SyncGroup is answered 5 s late and the consumer is
// destroyed in between: the process goes on (the handle is kept) instead of aborting.
TEST(ConsumerClose, AMemberClosedBeforeItsFirstAssignmentDoesNotAbortTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(close_before_first_assignment(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace courier::kafka
