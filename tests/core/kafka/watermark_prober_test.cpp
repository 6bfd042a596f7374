#include "core/kafka/watermark_prober.hpp"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "core/kafka/producer.hpp"
#include "core/kafka_mock/mock_cluster.hpp"

namespace courier::kafka {
namespace {

using namespace std::chrono_literals;

TEST(WatermarkProber, AnswersWithTheBrokersWatermarksFromARoundItRanByItself) {
  mock_cluster cluster;
  cluster.create_topic("orders.retry-5m", 2);
  producer prod{cluster.bootstrap_servers()};
  for (int i = 0; i < 3; ++i) {
    prod.produce("orders.retry-5m", 1, std::nullopt, "parked");
  }
  prod.flush(10s);
  watermark_prober prober{prod.raw(), 5s};
  const partition_id p{"orders.retry-5m", 1};
  std::map<partition_id, watermarks> answered = prober.ask({p});
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (answered.count(p) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);  // the step of a wait with a deadline
    answered = prober.ask({p});
  }
  ASSERT_EQ(answered.count(p), 1U) << "no round answered within 20 s";
  EXPECT_EQ(answered.at(p).low, 0);
  EXPECT_EQ(answered.at(p).high, 3);
  EXPECT_TRUE(prober.ask({}).empty()) << "a partition no longer asked about is forgotten";
}

TEST(WatermarkProber, AskReturnsWhileARoundWaitsForABrokerThatDoesNotAnswer) {
  producer nowhere{"127.0.0.1:1", {{"message.timeout.ms", "1000"}}};
  watermark_prober prober{nowhere.raw(), 3s};
  EXPECT_TRUE(prober.ask({partition_id{"orders", 0}}).empty());
  EXPECT_TRUE(prober.asking()) << "the round runs on the prober's thread, not the caller's";
  EXPECT_TRUE(prober.ask({partition_id{"orders", 0}}).empty()) << "no second round meanwhile";
}

}  // namespace
}  // namespace courier::kafka
