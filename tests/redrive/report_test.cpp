#include "tools/redrive/report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

namespace courier::redrive {
namespace {

// U+FFFD, what an invalid byte becomes.
constexpr const char* replacement = "\xEF\xBF\xBD";

// The target and the reason come from a DLQ record's courier.origin.topic header, which may
// hold any bytes; nlohmann's dump() throws on invalid UTF-8 and --json aborted.
TEST(Report, ARunWithAnInvalidUtf8TargetPrintsValidJson) {
  run_summary s;
  s.failed = 1;
  const std::string target = std::string{"orders"} + "\xFF\xFE";
  s.records.push_back(outcome{"brew.shipments.dlq:0:7", std::string{"k"} + "\xC3",
                              outcome_status::failed, target, 2, -1,
                              "target topic '" + target + "' does not exist"});
  std::ostringstream out;
  print_run(out, s, /*json=*/true);

  const auto report = nlohmann::json::parse(out.str());  // throws on invalid UTF-8
  const auto& row = report.at("records").at(0);
  EXPECT_EQ(row.at("target"), std::string{"orders"} + replacement + replacement);
  EXPECT_EQ(row.at("reason"),
            std::string{"target topic 'orders"} + replacement + replacement + "' does not exist");
  EXPECT_EQ(row.at("key"), std::string{"k"} + replacement);
  EXPECT_EQ(report.at("failed"), 1);
}

TEST(Report, AListWithInvalidUtf8CoordinatesPrintsValidJson) {
  const std::string topic = std::string{"dlq"} + "\xFF";
  std::ostringstream out;
  print_list(
      out,
      {list_row{topic + ":0:1", std::nullopt, "http_503", record_status::parked, "(none)", 0, 0}},
      /*now_ms=*/0, /*json=*/true);
  const auto report = nlohmann::json::parse(out.str());
  EXPECT_EQ(report.at("records").at(0).at("coordinates"),
            std::string{"dlq"} + replacement + ":0:1");
}

}  // namespace
}  // namespace courier::redrive
