#include "core/log/json_log.hpp"

#include "core/log/log_output.hpp"

#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace courier::log {
namespace {

// What one call writes to stderr.
std::string captured(const std::function<void()>& write) {
  testing::internal::CaptureStderr();
  write();
  return testing::internal::GetCapturedStderr();
}

class JsonLog : public testing::Test {
 protected:
  // JSON whatever the terminal running the test (auto would pick human on one).
  void SetUp() override { set_format(line_format::json); }
  void TearDown() override {
    ASSERT_TRUE(set_level("info"));
    set_format(line_format::json);
  }
};

TEST_F(JsonLog, WritesOneJsonObjectALineWithTimestampLevelEventAndFields) {
  const auto out = captured([] {
    info("partitions_paused", {{"route", "shipments"}, {"count", 4}});
  });
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n');
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line: " << out;
  const auto line = nlohmann::json::parse(out);
  EXPECT_EQ(line.at("level"), "info");
  EXPECT_EQ(line.at("event"), "partitions_paused");
  EXPECT_EQ(line.at("route"), "shipments");
  EXPECT_EQ(line.at("count"), 4);
  const std::string ts = line.at("ts");
  EXPECT_EQ(ts.size(), std::string{"2026-12-01T10:05:45.123Z"}.size()) << ts;
  EXPECT_EQ(ts.back(), 'Z') << ts;
}

TEST_F(JsonLog, TheLevelFiltersWhatIsWritten) {
  ASSERT_TRUE(set_level("warn"));
  EXPECT_TRUE(captured([] { info("breaker_state_changed"); }).empty());
  EXPECT_FALSE(captured([] { error("actor_died"); }).empty());
  ASSERT_TRUE(set_level("off"));
  EXPECT_TRUE(captured([] { error("actor_died"); }).empty());
}

TEST_F(JsonLog, AnUnknownLevelIsRefused) {
  EXPECT_FALSE(set_level("verbose"));
  EXPECT_FALSE(set_level(""));
}

TEST_F(JsonLog, InvalidUtf8InAFieldIsReplacedNotThrown) {
  const auto out = captured([] {
    warn("delivery_failed", {{"body", std::string{"\xff\xfe ok"}}});
  });
  const auto line = nlohmann::json::parse(out);
  EXPECT_NE(line.at("body").get<std::string>().find("ok"), std::string::npos);
}

TEST_F(JsonLog, TheHumanFormatWritesOneReadableLine) {
  set_format(line_format::human);
  const auto out = captured([] { info("partitions assigned", {{"route", "shipments"}}); });
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line: " << out;
  EXPECT_NE(out.find("Z INFO  partitions assigned route=shipments\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace courier::log
