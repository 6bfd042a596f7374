#include "topology/kafka_log.hpp"

#include "core/log/log_output.hpp"
#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>

namespace courier::topology {
namespace {

TEST(KafkaLog, SyslogSeveritiesMapToCouriersLevels) {
  for (const int severity : {0, 1, 2, 3}) {
    EXPECT_EQ(librdkafka_level(severity), log::level::error) << severity;
  }
  EXPECT_EQ(librdkafka_level(4), log::level::warn);
  EXPECT_EQ(librdkafka_level(5), log::level::info);
  EXPECT_EQ(librdkafka_level(6), log::level::info);
  EXPECT_EQ(librdkafka_level(7), log::level::debug);
}

TEST(KafkaLog, ALineIsOneJsonEventWithItsTagClientAndMessage) {
  const testing::temp_dir dir{"kafka-log"};
  const auto path = dir.path() / "log";
  std::FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  log::set_format(log::line_format::json);
  log::set_output(file);
  log_librdkafka(4, "CONFWARN", "rdkafka#producer-7",
                 "Configuration property auto.commit.interval.ms is a consumer property");
  log::set_output(stderr);
  std::fclose(file);

  std::ifstream in{path};
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  const auto doc = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(doc.is_object()) << line;
  EXPECT_EQ(doc.value("event", ""), "librdkafka");
  EXPECT_EQ(doc.value("level", ""), "warn");
  EXPECT_EQ(doc.value("facility", ""), "CONFWARN");
  EXPECT_EQ(doc.value("client", ""), "rdkafka#producer-7");
  EXPECT_EQ(doc.value("message", ""),
            "Configuration property auto.commit.interval.ms is a consumer property");
  EXPECT_FALSE(std::getline(in, line)) << "one line: " << line;
}

}  // namespace
}  // namespace courier::topology
