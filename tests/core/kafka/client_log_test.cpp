#include "core/kafka/client_log.hpp"

#include "core/kafka/producer.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

namespace courier::kafka {
namespace {

struct logged {
  int level = -1;
  std::string facility;
  std::string client;
  std::string message;
};

std::mutex lines_mutex;
std::vector<logged> lines;

void capture(int level, std::string_view facility, std::string_view client,
             std::string_view message) {
  const std::lock_guard<std::mutex> lock{lines_mutex};
  lines.push_back({level, std::string{facility}, std::string{client}, std::string{message}});
}

std::vector<logged> captured() {
  const std::lock_guard<std::mutex> lock{lines_mutex};
  return lines;
}

// librdkafka warns, as it creates the client, about a consumer property given to a producer:
// the line reaches the sink instead of stderr, with its severity, tag and client.
TEST(ClientLog, ALibrdkafkaLineGoesToTheSinkWithItsSeverityTagAndClient) {
  set_client_log_sink(&capture);
  {
    const producer p{"127.0.0.1:9", {{"auto.commit.interval.ms", "100"}}};
    static_cast<void>(p);
  }
  set_client_log_sink(nullptr);
  const auto all = captured();
  const logged* warning = nullptr;
  for (const auto& l : all) {
    if (l.facility == "CONFWARN" &&
        l.message.find("auto.commit.interval.ms") != std::string::npos) {
      warning = &l;
    }
  }
  ASSERT_NE(warning, nullptr) << all.size() << " lines, none the CONFWARN";
  EXPECT_EQ(warning->level, 4);  // LOG_WARNING
  EXPECT_EQ(warning->client.rfind("rdkafka#producer-", 0), 0U) << warning->client;
}

}  // namespace
}  // namespace courier::kafka
