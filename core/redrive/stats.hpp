#pragma once

#include "core/redrive/parked_record.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace courier::redrive {

// Age buckets of --stats, by the time of the last failure.
inline constexpr std::array<std::string_view, 4> age_bucket_names{"<1h", "<1d", "<7d", "older"};

std::size_t age_bucket(std::int64_t age_ms);

struct dated_record {
  std::string coordinates;
  std::int64_t failed_at_ms = 0;
};

// --stats: a summary of the DLQ records that passed the filter.
struct dlq_stats {
  std::size_t total = 0;
  std::size_t redriven = 0;                           // in the ledger already
  std::size_t malformed = 0;                          // with a malformed courier.* header
  std::map<std::string, std::size_t> by_error_class;  // "" -> "(none)"
  std::map<std::string, std::size_t> by_origin;       // "topic:partition", or "(none)"
  std::array<std::size_t, 4> by_age{};
  std::optional<dated_record> oldest;
  std::optional<dated_record> newest;

  void add(const parked_record& r, bool redriven, std::int64_t now_ms);
};

}  // namespace courier::redrive
