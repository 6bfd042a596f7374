#include "core/redrive/ledger.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

namespace courier::redrive {

std::string ledger_key(const record_position& at) { return to_string(at); }

std::optional<record_position> parse_coordinates(std::string_view text) {
  const std::size_t last = text.rfind(':');
  if (last == std::string_view::npos || last == 0) {
    return std::nullopt;
  }
  const std::size_t middle = text.rfind(':', last - 1);
  if (middle == std::string_view::npos || middle == 0) {
    return std::nullopt;
  }
  record_position c;
  c.topic = std::string{text.substr(0, middle)};
  const std::string_view partition = text.substr(middle + 1, last - middle - 1);
  const std::string_view offset = text.substr(last + 1);
  const auto p =
      std::from_chars(partition.data(), partition.data() + partition.size(), c.partition);
  const auto o = std::from_chars(offset.data(), offset.data() + offset.size(), c.offset);
  if (partition.empty() || offset.empty() || p.ec != std::errc{} ||
      p.ptr != partition.data() + partition.size() || o.ec != std::errc{} ||
      o.ptr != offset.data() + offset.size() || c.partition < 0 || c.offset < 0 ||
      c.topic.find(':') != std::string::npos) {
    return std::nullopt;
  }
  return c;
}

std::string default_ledger_topic(std::string_view dlq_topic) {
  return std::string{dlq_topic} + ".redriven";
}

std::string transactional_id_for(std::string_view dlq_topic) {
  return "courier-redrive-" + std::string{dlq_topic};
}

// Distinct by role: the target topic, partition and time of one ledger entry.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
std::string ledger_value(std::string_view target_topic, std::int32_t target_partition,
                         std::int64_t at_ms) {
  nlohmann::json v{{"target", std::string{target_topic}}, {"at", at_ms}};
  if (target_partition >= 0) {
    v["partition"] = target_partition;
  }
  return v.dump();
}

void ledger::apply(const std::string& key, bool tombstone) {
  if (tombstone) {
    keys_.erase(key);
  } else {
    keys_.insert(key);
  }
}

}  // namespace courier::redrive
