#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace courier::redrive {

// What a run did with one DLQ record it did not pass over silently (the ledger has it, the
// filter excludes it).
enum class outcome_status : std::uint8_t { moved, would_move, refused, failed };

constexpr std::string_view to_string(outcome_status s) {
  switch (s) {
    case outcome_status::moved:
      return "moved";
    case outcome_status::would_move:
      return "would_move";
    case outcome_status::refused:
      return "refused";
    case outcome_status::failed:
      return "failed";
  }
  return "failed";
}

struct outcome {
  std::string from;  // DLQ coordinates
  std::optional<std::string> key;
  outcome_status status = outcome_status::failed;
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
  std::size_t malformed = 0;     // of `failed`: a malformed courier.* header
  std::vector<outcome> records;  // in the order the run met them
  // A stop request ended the run at a batch boundary: the rest stays in the DLQ.
  bool stopped = false;
  // Kafka failed midway (librdkafka's words): what is counted happened, the rest stays in the
  // DLQ, and a batch whose outcome is unknown is counted failed (the ledger decides next time).
  std::optional<std::string> interrupted;
};

// How far a run is: after every DLQ record it read.
struct run_progress {
  std::size_t read = 0;
  std::size_t total = 0;  // the DLQ records between the low and high watermarks at the start
  std::size_t moved = 0;  // moved, or would move in a dry run
};

using progress_callback = std::function<void(const run_progress&)>;

}  // namespace courier::redrive
