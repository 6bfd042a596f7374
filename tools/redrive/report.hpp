#pragma once

#include "core/model/record.hpp"
#include "tools/redrive/stats.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace courier::redrive {

// One line of --list.
struct list_row {
  std::string coordinates;
  std::optional<std::string> key;
  std::string error_class;
  std::string status;  // parked, redriven, refused, malformed
  std::string origin;  // "topic:partition" or "(none)"
  std::int64_t failed_at_ms = 0;
  int redrive_count = 0;
};

// What a run did with one DLQ record it did not skip silently.
struct outcome {
  std::string from;  // DLQ coordinates
  std::optional<std::string> key;
  std::string status;  // moved, would_move, refused, failed
  std::string target;
  std::int32_t partition = -1;
  std::int64_t offset = -1;  // in the target topic, once acknowledged
  std::string reason;        // for refused and failed
};

struct run_summary {
  bool dry_run = false;
  std::size_t moved = 0;
  std::size_t would_move = 0;
  std::size_t already_redriven = 0;
  std::size_t filtered_out = 0;
  std::size_t refused = 0;
  std::size_t failed = 0;
  std::vector<outcome> records;
};

void print_list(std::ostream& out, const std::vector<list_row>& rows, std::int64_t now_ms,
                bool json);
void print_stats(std::ostream& out, const dlq_stats& s, std::int64_t now_ms, bool json);
void print_record(std::ostream& out, const record& r, bool json);
void print_run(std::ostream& out, const run_summary& s, bool json);

// "42s", "3m", "5h", "2d": a short age for tables.
std::string format_age(std::int64_t age_ms);

}  // namespace courier::redrive
