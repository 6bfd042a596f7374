#include "core/metrics/counter_table.hpp"

#include <array>
#include <cstdint>

#include <gtest/gtest.h>

namespace courier::metrics {

enum class in_order : std::uint8_t { a, b, c };
enum class swapped : std::uint8_t { a, b };
enum class split_family : std::uint8_t { a, b, c };

template <>
struct counter_table<in_order> {
  static constexpr std::array<counter_spec<in_order>, 3> rows{{
      {in_order::a, "a", "x_total", "X by kind.", "kind", "a"},
      {in_order::b, "b", "x_total", {}, "kind", "b"},
      {in_order::c, "c", "y_total", "Y."},
  }};
};

template <>
struct counter_table<swapped> {
  static constexpr std::array<counter_spec<swapped>, 2> rows{{
      {swapped::b, "b", "b_total", "B."},
      {swapped::a, "a", "a_total", "A."},
  }};
};

template <>
struct counter_table<split_family> {
  static constexpr std::array<counter_spec<split_family>, 3> rows{{
      {split_family::a, "a", "x_total", "X.", "kind", "a"},
      {split_family::b, "b", "y_total", "Y."},
      {split_family::c, "c", "x_total", {}, "kind", "c"},
  }};
};

namespace {

TEST(CounterTable, RowsInTheEnumsOrderWithAdjacentFamiliesAreInOrder) {
  static_assert(counters_are_in_order<in_order>());
  EXPECT_EQ(counter_count<in_order>, 3U);
}

TEST(CounterTable, RowsOutOfTheEnumsOrderAreRefused) {
  EXPECT_FALSE(counters_are_in_order<swapped>());
}

TEST(CounterTable, AFamilyWhoseRowsAreNotAdjacentIsRefused) {
  EXPECT_FALSE(counters_are_in_order<split_family>());
}

TEST(CounterArray, IsIndexedByTheEnumAndStartsAtZero) {
  counter_array<in_order, std::uint64_t> counts;
  ++counts[in_order::b];
  counts[in_order::c] += 5;
  EXPECT_EQ(counts[in_order::a], 0U);
  EXPECT_EQ(counts.at_index(1), 1U);
  EXPECT_EQ(counts[in_order::c], 5U);
  EXPECT_EQ(counts.size(), 3U);
}

}  // namespace
}  // namespace courier::metrics
