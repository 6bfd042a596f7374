#include "core/redrive/time_arg.hpp"

#include <gtest/gtest.h>

#include <string>

namespace courier::redrive {
namespace {

constexpr std::int64_t now = 1'796'032'800'000;  // 2026-11-30T10:00:00Z

TEST(TimeArg, ReadsIsoUtcWithAndWithoutMilliseconds) {
  EXPECT_EQ(parse_time_arg("2026-11-30T10:00:00Z", 0), now);
  EXPECT_EQ(parse_time_arg("2026-11-30T10:00:00.250Z", 0), now + 250);
  EXPECT_EQ(parse_time_arg("1970-01-01T00:00:00Z", 0), 0);
}

TEST(TimeArg, ReadsADurationAgo) {
  EXPECT_EQ(parse_time_arg("2h", now), now - 7'200'000);
  EXPECT_EQ(parse_time_arg("7d", now), now - 7 * 86'400'000LL);
  EXPECT_EQ(parse_time_arg("90s", now), now - 90'000);
  EXPECT_EQ(parse_time_arg("1.5m", now), now - 90'000);
}

// An epoch would otherwise be read as that many seconds ago: 1970, every record.
TEST(TimeArg, RefusesABareNumberAndSuggestsBothForms) {
  for (const char* bare : {"90", "1764496800", "1.5"}) {
    EXPECT_FALSE(parse_time_arg(bare, now)) << bare;
    const std::string expected = time_arg_expected(bare);
    EXPECT_NE(expected.find("90s"), std::string::npos) << expected;
    EXPECT_NE(expected.find("2026-11-30T10:00:00Z"), std::string::npos) << expected;
  }
}

TEST(TimeArg, RejectsWhatIsNeitherATimeNorADuration) {
  for (const char* bad : {"", "yesterday", "2026-11-30 10:00:00Z", "2026-11-30T10:00:00",
                          "2026-02-30T10:00:00Z", "2026-11-30T24:00:00Z", "-2h", "2x", "d"}) {
    EXPECT_FALSE(parse_time_arg(bad, now)) << bad;
  }
}

TEST(TimeArg, FormatsUtcWithMilliseconds) {
  EXPECT_EQ(format_utc(now + 5), "2026-11-30T10:00:00.005Z");
}

}  // namespace
}  // namespace courier::redrive
