#include "app/audit_bounds.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace courier::app {
namespace {

constexpr std::int64_t now = 1'764'496'800'000;  // 2025-11-30T10:00:00Z

TEST(AuditBounds, ABareNumberIsAnOffsetInEveryPartition) {
  const auto b = parse_audit_bound("1200", now);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->what, audit_bound::kind::offset);
  EXPECT_EQ(offset_of(b, 0, 7, nullptr), 1200);
  EXPECT_EQ(offset_of(b, 5, 7, nullptr), 1200);
}

TEST(AuditBounds, OffsetsByPartitionLeaveTheOthersAtTheirDefault) {
  const auto b = parse_audit_bound("0:1200,3:900", now);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->what, audit_bound::kind::offsets);
  EXPECT_EQ(b->by_partition, (std::map<std::int32_t, std::int64_t>{{0, 1200}, {3, 900}}));
  EXPECT_EQ(offset_of(b, 3, 7, nullptr), 900);
  EXPECT_EQ(offset_of(b, 1, 7, nullptr), 7);
}

TEST(AuditBounds, ATimeIsLookedUpPerPartition) {
  const auto iso = parse_audit_bound("2025-11-30T09:00:00Z", now);
  ASSERT_TRUE(iso.has_value());
  EXPECT_EQ(iso->what, audit_bound::kind::time);
  EXPECT_EQ(iso->time_ms, now - 3'600'000);
  const auto ago = parse_audit_bound("2h", now);
  ASSERT_TRUE(ago.has_value());
  EXPECT_EQ(ago->time_ms, now - 7'200'000);
  std::int64_t asked = 0;
  EXPECT_EQ(offset_of(ago, 2, 7,
                      [&](std::int64_t ms) {
                        asked = ms;
                        return std::int64_t{42};
                      }),
            42);
  EXPECT_EQ(asked, now - 7'200'000);
}

TEST(AuditBounds, NoBoundIsTheDefault) { EXPECT_EQ(offset_of(std::nullopt, 0, 7, nullptr), 7); }

TEST(AuditBounds, AnythingElseIsRefusedAndTheErrorNamesTheFlagAndTheForms) {
  for (const char* bad : {"", "soon", "-5", "0:", ":5", "0:5,", "0:5,0:6", "a:1", "0:1:2", "12x"}) {
    EXPECT_FALSE(parse_audit_bound(bad, now).has_value()) << bad;
  }
  const auto message = audit_bound_expected("--from", "soon");
  for (const char* needle : {"--from", "'soon'", "2026-12-01T10:00:00Z", "1200", "0:1200,3:900"}) {
    EXPECT_NE(message.find(needle), std::string::npos) << needle << " in " << message;
  }
}

}  // namespace
}  // namespace courier::app
