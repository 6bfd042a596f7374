#include "demo/topic_reader.hpp"

#include <atomic>

#include "core/kafka/consumer.hpp"

namespace courier::demo {

std::vector<record> read_topic(const std::string& brokers, const std::string& topic,
                               std::size_t expected, std::chrono::milliseconds timeout,
                               const std::map<std::string, std::string>& extra) {
  static std::atomic<unsigned> readers{0};
  std::vector<record> out;
  if (expected == 0) {
    return out;
  }
  kafka::consumer c{
      kafka::consumer_settings{
          brokers, "courier-reader-" + topic + "-" + std::to_string(++readers), {topic}, extra, {}},
      {}};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (out.size() < expected && std::chrono::steady_clock::now() < deadline) {
    for (auto& r : c.poll(std::chrono::milliseconds{100}, 500)) {
      out.push_back(std::move(r));
    }
  }
  c.close();
  return out;
}

}  // namespace courier::demo
