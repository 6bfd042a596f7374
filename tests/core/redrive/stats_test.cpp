#include "core/redrive/stats.hpp"

#include <gtest/gtest.h>

namespace courier::redrive {
namespace {

constexpr std::int64_t hour = 3'600'000;

parked_record parked(std::int64_t offset, const std::string& cls, std::int64_t failed_at) {
  record r;
  r.topic = "d";
  r.offset = offset;
  r.headers = {{"courier.error.class", cls},
               {"courier.origin.topic", "o"},
               {"courier.origin.partition", std::to_string(offset % 2)},
               {"courier.last.failure", std::to_string(failed_at)}};
  return read_parked_record(std::move(r));
}

TEST(Stats, CountsByClassOriginAndAgeWithOldestAndNewest) {
  const std::int64_t now = 1000 * hour;
  dlq_stats s;
  s.add(parked(0, "http_503", now - 10), false, now);
  s.add(parked(1, "http_503", now - 2 * hour), true, now);
  s.add(parked(2, "http_4xx", now - 48 * hour), false, now);
  s.add(parked(3, "timeout", now - 30 * 24 * hour), false, now);
  EXPECT_EQ(s.total, 4U);
  EXPECT_EQ(s.redriven, 1U);
  EXPECT_EQ(s.by_error_class.at("http_503"), 2U);
  EXPECT_EQ(s.by_error_class.at("http_4xx"), 1U);
  EXPECT_EQ(s.by_origin.at("o:0"), 2U);
  EXPECT_EQ(s.by_origin.at("o:1"), 2U);
  EXPECT_EQ(s.by_age, (std::array<std::size_t, 4>{1, 1, 1, 1}));
  EXPECT_EQ(s.oldest->coordinates, "d:0:3");
  EXPECT_EQ(s.newest->coordinates, "d:0:0");
}

TEST(Stats, AgeBucketsHaveExclusiveUpperBounds) {
  EXPECT_EQ(age_bucket(hour - 1), 0U);
  EXPECT_EQ(age_bucket(hour), 1U);
  EXPECT_EQ(age_bucket(24 * hour), 2U);
  EXPECT_EQ(age_bucket(7 * 24 * hour), 3U);
}

}  // namespace
}  // namespace courier::redrive
