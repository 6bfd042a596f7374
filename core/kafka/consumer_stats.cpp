#include "core/kafka/consumer_stats.hpp"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace courier::kafka {
namespace {

std::int64_t offset_field(const nlohmann::json& p, const char* name) {
  const auto it = p.find(name);
  return it != p.end() && it->is_number_integer() ? it->get<std::int64_t>() : -1;
}

nlohmann::json parse_statistics(std::string_view json) {
  auto doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) {
    throw std::invalid_argument("librdkafka statistics: not a JSON object");
  }
  return doc;
}

}  // namespace

std::optional<bool> parse_broker_up(std::string_view json) {
  const auto doc = parse_statistics(json);
  const auto brokers = doc.find("brokers");
  if (brokers == doc.end() || !brokers->is_object() || brokers->empty()) {
    return std::nullopt;
  }
  for (const auto& [name, b] : brokers->items()) {
    if (b.is_object() && b.value("state", std::string{}) == "UP") {
      return true;
    }
  }
  return false;
}

// Distinct by role: the partition's first and next offsets, in that order.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
partition_position with_watermarks(partition_position reported, std::int64_t low,
                                   std::int64_t high) {
  if (high < 0) {
    return reported;
  }
  reported.high_watermark = high;
  const std::int64_t from = reported.committed >= 0 ? reported.committed : low;
  if (from >= 0) {
    reported.lag = std::max<std::int64_t>(high - from, 0);
  }
  return reported;
}

std::vector<partition_position> parse_consumer_positions(std::string_view json) {
  const auto doc = parse_statistics(json);
  std::vector<partition_position> out;
  const auto topics = doc.find("topics");
  if (topics == doc.end() || !topics->is_object()) {
    return out;  // no topic known yet
  }
  for (const auto& [name, topic] : topics->items()) {
    const auto partitions = topic.find("partitions");
    if (partitions == topic.end() || !partitions->is_object()) {
      continue;
    }
    for (const auto& [id, p] : partitions->items()) {
      const auto number = p.find("partition");
      // -1 is librdkafka's internal "unassigned" partition; `desired` marks the ones fetched.
      if (number == p.end() || !number->is_number_integer() || number->get<int>() < 0 ||
          !p.value("desired", false)) {
        continue;
      }
      partition_position pos;
      pos.topic = name;
      pos.partition = number->get<std::int32_t>();
      pos.committed = offset_field(p, "committed_offset");
      pos.high_watermark = offset_field(p, "hi_offset");
      pos.lag = offset_field(p, "consumer_lag");
      out.push_back(std::move(pos));
    }
  }
  return out;
}

}  // namespace courier::kafka
