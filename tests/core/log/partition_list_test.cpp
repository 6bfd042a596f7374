#include "core/log/partition_list.hpp"

#include <set>

#include <gtest/gtest.h>

#include "tests/support/partition_names.hpp"

namespace courier::log {
namespace {

using list = std::vector<std::string>;

std::vector<partition_id> of(const std::string& topic, std::vector<std::int32_t> ps) {
  std::vector<partition_id> out;
  for (const auto p : ps) {
    out.push_back(partition_id{topic, p});
  }
  return out;
}

TEST(PartitionList, NoPartitionsIsAnEmptyList) { EXPECT_EQ(compact_partition_list({}), list{}); }

TEST(PartitionList, OnePartitionIsItsNumber) {
  EXPECT_EQ(compact_partition_list(of("brew.shipments.v1", {7})), list{"brew.shipments.v1[7]"});
}

TEST(PartitionList, RunsBecomeRangesAndGapsCommas) {
  EXPECT_EQ(compact_partition_list(of("t", {0, 1, 2, 3})), list{"t[0-3]"});
  EXPECT_EQ(compact_partition_list(of("brew.shipments.v1", {0, 1, 2, 3, 5, 7, 8, 9})),
            list{"brew.shipments.v1[0-3,5,7-9]"});
  EXPECT_EQ(compact_partition_list(of("t", {1, 3})), list{"t[1,3]"});
}

TEST(PartitionList, UnsortedInputWithDuplicatesIsSortedAndDeduplicated) {
  EXPECT_EQ(compact_partition_list(of("t", {9, 3, 0, 2, 1, 3, 8, 9})), list{"t[0-3,8-9]"});
}

TEST(PartitionList, SeveralTopicsGetOneEntryEachInNameOrder) {
  auto ps = of("t.retry.5s", {1, 0});
  const auto source = of("t", {2, 0, 1});
  ps.insert(ps.begin() + 1, source.begin(), source.end());
  EXPECT_EQ(compact_partition_list(ps), (list{"t[0-2]", "t.retry.5s[0-1]"}));
}

// The e2e tests read the log's lists back (tests/support/partition_names.hpp).
TEST(PartitionList, AnEntryReadsBackAsThePartitionsItFolded) {
  const auto ps = of("brew.shipments.v1", {9, 0, 1, 2, 3, 5, 7, 8, 5});
  std::set<std::string> names;
  for (const auto& entry : compact_partition_list(ps)) {
    for (const auto& name : testing::expand_partition_entry(entry)) {
      names.insert(name);
    }
  }
  std::set<std::string> expected;
  for (const auto& p : ps) {
    expected.insert(p.topic + "[" + std::to_string(p.partition) + "]");
  }
  EXPECT_EQ(names, expected);
}

}  // namespace
}  // namespace courier::log
