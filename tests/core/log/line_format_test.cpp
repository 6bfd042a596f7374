#include "core/log/line_format.hpp"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace courier::log {
namespace {

// 2026-12-01T19:06:18.123Z
constexpr std::int64_t at = 1'796'151'978'123;

std::string human(level lvl, std::string_view event, const nlohmann::json& fields) {
  return format_line(line_format::human, at, lvl, event, fields);
}

TEST(LineFormat, JsonIsOneObjectWithTimestampLevelEventAndFields) {
  const auto line = format_line(line_format::json, at, level::info, "partitions assigned",
                                {{"route", "shipments"}, {"count", 4}});
  EXPECT_EQ(line, R"({"count":4,"event":"partitions assigned","level":"info",)"
                  R"("route":"shipments","ts":"2026-12-01T19:06:18.123Z"})");
}

TEST(LineFormat, HumanIsTimeLevelEventThenKeyValuePairs) {
  EXPECT_EQ(human(level::info, "partitions assigned",
                  {{"route", "shipments"}, {"partitions", {"brew.shipments.v1[0-3]"}}}),
            "2026-12-01T19:06:18.123Z INFO  partitions assigned "
            "partitions=brew.shipments.v1[0-3] route=shipments");
  EXPECT_EQ(human(level::warn, "x", nlohmann::json::object()), "2026-12-01T19:06:18.123Z WARN  x");
  EXPECT_EQ(human(level::error, "x", {{"n", 1}}), "2026-12-01T19:06:18.123Z ERROR x n=1");
  EXPECT_EQ(human(level::debug, "x", {{"ok", true}}), "2026-12-01T19:06:18.123Z DEBUG x ok=true");
}

TEST(LineFormat, HumanQuotesStringsThatNeedIt) {
  EXPECT_EQ(human(level::info, "e", {{"error", "connection refused"}}).substr(31),
            R"(e error="connection refused")");
  EXPECT_EQ(human(level::info, "e", {{"v", ""}}).substr(31), R"(e v="")");
  EXPECT_EQ(human(level::info, "e", {{"v", "a=b"}}).substr(31), R"(e v="a=b")");
  EXPECT_EQ(human(level::info, "e", {{"v", R"(say "hi")"}}).substr(31), R"(e v="say \"hi\"")");
  EXPECT_EQ(human(level::info, "e", {{"v", "café"}}).substr(31), "e v=café");
}

TEST(LineFormat, HumanWritesNestedValuesAsCompactJson) {
  EXPECT_EQ(human(level::info, "e", {{"o", {{"a", 1}, {"b", {1, 2}}}}}).substr(31),
            R"(e o={"a":1,"b":[1,2]})");
  EXPECT_EQ(human(level::info, "e", {{"l", nlohmann::json::array()}}).substr(31), "e l=[]");
  EXPECT_EQ(human(level::info, "e", {{"l", {"a b", "c"}}}).substr(31), R"(e l=["a b","c"])");
  EXPECT_EQ(human(level::info, "e", {{"n", nullptr}}).substr(31), "e n=null");
}

TEST(LineFormat, HumanJoinsAListOfPlainStringsWithCommas) {
  EXPECT_EQ(human(level::info, "e", {{"schemes", {"x_signature", "standard_webhooks"}}}).substr(31),
            "e schemes=x_signature,standard_webhooks");
  // Entries that hold commas themselves stay apart: one entry a topic.
  EXPECT_EQ(human(level::info, "e", {{"p", {"a[0,2]", "b[1]"}}}).substr(31),
            R"(e p=["a[0,2]","b[1]"])");
  EXPECT_EQ(human(level::info, "e", {{"p", {"a[0,2]"}}}).substr(31), "e p=a[0,2]");
}

TEST(LineFormat, ControlCharactersAreEscapedSoAnEventIsOneLine) {
  const nlohmann::json fields = {{"body", "line one\nline two\r\x1b[2J\t"}, {"key\nx", "v"}};
  for (const auto format : {line_format::human, line_format::json}) {
    const auto line = format_line(format, at, level::warn, "bad\nevent", fields);
    for (const char c : line) {
      EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20) << "a control character in " << line;
    }
  }
  const auto line = human(level::warn, "bad\nevent", fields);
  EXPECT_NE(line.find(R"(WARN  "bad\nevent")"), std::string::npos) << line;
  EXPECT_NE(line.find(R"(body="line one\nline two\r\u001b[2J\t")"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("key\nx"=v)"), std::string::npos) << line;
}

TEST(LineFormat, InvalidUtf8IsReplacedInBothFormats) {
  const nlohmann::json fields = {{"body", std::string{"\xff ok"}}};
  const auto json = format_line(line_format::json, at, level::info, "e", fields);
  EXPECT_NE(nlohmann::json::parse(json).at("body").get<std::string>().find("ok"),
            std::string::npos);
  const auto line = human(level::info, "e", fields);
  EXPECT_NE(line.find("body=\"\xef\xbf\xbd ok\""), std::string::npos) << line;
}

TEST(LineFormat, AutoIsHumanOnATerminalAndJsonOtherwise) {
  EXPECT_EQ(resolve_format(format_choice::auto_detect, true), line_format::human);
  EXPECT_EQ(resolve_format(format_choice::auto_detect, false), line_format::json);
  EXPECT_EQ(resolve_format(format_choice::human, false), line_format::human);
  EXPECT_EQ(resolve_format(format_choice::json, true), line_format::json);
}

TEST(LineFormat, ChoicesAreParsedByName) {
  EXPECT_EQ(parse_format_choice("auto"), format_choice::auto_detect);
  EXPECT_EQ(parse_format_choice("human"), format_choice::human);
  EXPECT_EQ(parse_format_choice("json"), format_choice::json);
  EXPECT_FALSE(parse_format_choice("text").has_value());
  EXPECT_FALSE(parse_format_choice("").has_value());
}

}  // namespace
}  // namespace courier::log
