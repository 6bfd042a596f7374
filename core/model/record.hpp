#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/payload.hpp"
#include "core/model/record_position.hpp"

namespace courier {

using header = std::pair<std::string, std::string>;
using header_list = std::vector<header>;

// One Kafka record as courier carries it between the consumer and the delivery pool.
struct record {
  std::string topic;
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  std::optional<std::string> key;
  payload value;  // shared, never copied: see payload
  header_list headers;
  std::int64_t timestamp_ms = 0;

  [[nodiscard]] record_position position() const { return {topic, partition, offset}; }
};

// The first value of header `name`, if the record carries it.
std::optional<std::string_view> find_header(const header_list& headers, std::string_view name);

}  // namespace courier
