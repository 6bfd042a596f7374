#include "core/time/duration.hpp"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

namespace courier {
namespace {

using std::chrono::milliseconds;

TEST(Duration, ParsesEachUnit) {
  EXPECT_EQ(parse_duration("500ms"), milliseconds{500});
  EXPECT_EQ(parse_duration("3s"), milliseconds{3000});
  EXPECT_EQ(parse_duration("5m"), milliseconds{300000});
  EXPECT_EQ(parse_duration("1h"), milliseconds{3600000});
}

TEST(Duration, ReadsABareNumberAsSeconds) {
  EXPECT_EQ(parse_duration("2"), milliseconds{2000});
  EXPECT_EQ(parse_duration("1.5"), milliseconds{1500});
  EXPECT_EQ(parse_duration("0.001"), milliseconds{1});
}

TEST(Duration, AcceptsAFractionThatIsAWholeNumberOfMilliseconds) {
  EXPECT_EQ(parse_duration("1.5s"), milliseconds{1500});
  EXPECT_EQ(parse_duration("0.5m"), milliseconds{30000});
  EXPECT_EQ(parse_duration("0.25h"), milliseconds{900000});
  EXPECT_EQ(parse_duration("2.000ms"), milliseconds{2});
}

TEST(Duration, RejectsAFractionOfAMillisecond) {
  EXPECT_EQ(parse_duration("1.5ms"), std::nullopt);
  EXPECT_EQ(parse_duration("0.0001"), std::nullopt);
  EXPECT_EQ(parse_duration("0.0000000001h"), std::nullopt);
}

TEST(Duration, AcceptsZero) {
  EXPECT_EQ(parse_duration("0"), milliseconds{0});
  EXPECT_EQ(parse_duration("0ms"), milliseconds{0});
}

TEST(Duration, RejectsNegatives) {
  EXPECT_EQ(parse_duration("-1"), std::nullopt);
  EXPECT_EQ(parse_duration("-1s"), std::nullopt);
  EXPECT_EQ(parse_duration("-0.5"), std::nullopt);
}

TEST(Duration, RejectsEmptyInputAndJunk) {
  for (const char* junk : {"", " ", "s", "ms", "abc", "3x", "3sec", "3 s", " 3s", "3s ", ".5", "5.",
                           "+3s", "1e3", "3s5", "0x10", "1..5", "3S"}) {
    EXPECT_EQ(parse_duration(junk), std::nullopt) << '"' << junk << '"';
  }
}

TEST(Duration, RejectsValuesThatOverflowMilliseconds) {
  EXPECT_EQ(parse_duration("9223372036854775807ms"), milliseconds{9223372036854775807LL});
  EXPECT_EQ(parse_duration("9223372036854775808ms"), std::nullopt);
  EXPECT_EQ(parse_duration("9223372036854775807s"), std::nullopt);
  EXPECT_EQ(parse_duration("99999999999999999999999"), std::nullopt);
  EXPECT_EQ(parse_duration("9223372036854775807.5"), std::nullopt);
}

TEST(Duration, FormatsTheShortestExactForm) {
  EXPECT_EQ(format_duration(milliseconds{500}), "500ms");
  EXPECT_EQ(format_duration(milliseconds{3000}), "3s");
  EXPECT_EQ(format_duration(milliseconds{300000}), "5m");
  EXPECT_EQ(format_duration(milliseconds{3600000}), "1h");
  EXPECT_EQ(format_duration(milliseconds{90000}), "90s");
  EXPECT_EQ(format_duration(milliseconds{1500}), "1500ms");
  EXPECT_EQ(format_duration(milliseconds{3660000}), "61m");
  EXPECT_EQ(format_duration(milliseconds{0}), "0s");
  EXPECT_EQ(format_duration(milliseconds{-2000}), "-2s");
}

TEST(Duration, FormattedValuesParseBackToThemselves) {
  for (long long ms : {1LL, 999LL, 1000LL, 1001LL, 59000LL, 60000LL, 7200000LL, 86400000LL,
                       9223372036854775807LL}) {
    const milliseconds d{ms};
    EXPECT_EQ(parse_duration(format_duration(d)), d) << ms;
  }
}

}  // namespace
}  // namespace courier
