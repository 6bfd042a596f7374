// The offset map in a commit's metadata is bound to the offset it was written at (issue 48), on
// librdkafka's mock cluster: a group whose committed offset is not the one its map was written
// for (a reset that kept the metadata) has every record from the committed offset on taken for
// delivery, none skipped as done, and the map counted as ignored.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/flow/consumer_core.hpp"
#include "core/flow/offset_map.hpp"
#include "core/kafka/consumer.hpp"
#include "core/kafka/producer.hpp"
#include "core/kafka_mock/mock_cluster.hpp"
#include "tests/support/kafka_group.hpp"
#include "tests/support/wait_until.hpp"

namespace courier {
namespace {

using namespace std::chrono_literals;
using testing::wait_until;

class dispatch_log final : public consumer_backend {
 public:
  void dispatch(record r) override { dispatched.insert(r.offset); }
  void expedite(const partition_id& /*p*/, std::int64_t /*offset*/) override {}
  void pause(const std::vector<partition_id>& /*ps*/) override {}
  void resume(const std::vector<partition_id>& /*ps*/) override {}
  void wake_at(const partition_id& /*p*/, std::int64_t /*at_ms*/) override {}
  void dead_letter(record r) override { dispatched.insert(r.offset); }
  void malformed_due(const record& /*r*/, const std::string& /*error*/) override {}
  void untrusted_provenance(const record& /*r*/,
                            const std::vector<std::string>& /*names*/) override {}

  std::set<std::int64_t> dispatched;
};

TEST(OffsetMapBase, RecordsAboveACommitWhoseMapWasWrittenForAnotherOffsetAreDeliveredNotSkipped) {
  kafka::mock_cluster cluster;
  cluster.create_topic("orders", 1);
  {
    kafka::producer p{cluster.bootstrap_servers()};
    for (int i = 0; i < 40; ++i) {
      p.produce("orders", 0, std::to_string(i), "{}");
    }
    p.flush(10s);
    ASSERT_EQ(p.acked(), 40U);
  }
  const kafka::consumer_settings settings{
      cluster.bootstrap_servers(), "reset", {"orders"}, testing::fast_group(), {}};
  {
    // An owner at 20 with [21, 40) done committed its map; then the group was reset to 10 with
    // the metadata kept (as another client committing courier's metadata would leave it).
    kafka::consumer first{settings, {}};
    ASSERT_TRUE(wait_until([&] { return !first.assignment().empty(); }, 30s,
                           [&] { (void)first.poll(testing::poll_timeout, testing::poll_batch); }));
    done_offsets done;
    done.add(21, 40);
    const auto map = encode_offset_map(20, done, default_offset_map_budget);
    std::vector<offset_commit> commits;
    offset_commit reset;
    reset.partition = partition_id{"orders", 0};
    reset.offset = 10;
    reset.metadata = map;
    commits.push_back(std::move(reset));
    first.commit(commits, kafka::commit_mode::sync);
    first.close();
  }

  dispatch_log io;
  consumer_core_settings core_settings;
  core_settings.max_in_flight = 100;
  core_settings.source_topic = "orders";
  consumer_core core{core_settings, io};
  kafka::consumer::callbacks cb;
  cb.on_assigned = [&](const std::vector<assigned_partition>& ps) { core.assign(ps, 0); };
  kafka::consumer second{settings, cb};
  ASSERT_TRUE(wait_until([&] { return io.dispatched.size() >= 30; }, 30s,
                         [&] {
                           for (auto& r : second.poll(testing::poll_timeout, testing::poll_batch)) {
                             (void)core.take(std::move(r), 0);
                           }
                         }))
      << io.dispatched.size() << " of 30 records taken for delivery";
  EXPECT_EQ(*io.dispatched.begin(), 10);
  EXPECT_EQ(*io.dispatched.rbegin(), 39);
  EXPECT_EQ(core.counts()[consumer_counter::already_done], 0U) << "nothing skipped";
  EXPECT_EQ(core.counts()[consumer_counter::offset_maps_other_offset], 1U);
  second.close();
}

}  // namespace
}  // namespace courier
