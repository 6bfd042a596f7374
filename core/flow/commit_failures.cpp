#include "core/flow/commit_failures.hpp"

namespace courier {

// NOLINTNEXTLINE(bugprone-easily-swappable-parameters): a count and a time, as fetch_starvation's
std::optional<commit_failures::line> commit_failures::failed(std::size_t partitions,
                                                             std::int64_t now_ms) {
  in_run_ += partitions;
  if (!run_started_ms_) {
    run_started_ms_ = now_ms;
    last_line_ms_ = now_ms;
    since_line_ = 0;
    return line{line::kind::started, partitions, 0};
  }
  since_line_ += partitions;
  if (now_ms - last_line_ms_ < interval_ms_) {
    return std::nullopt;
  }
  line out{line::kind::continuing, since_line_, now_ms - *run_started_ms_};
  last_line_ms_ = now_ms;
  since_line_ = 0;
  return out;
}

std::optional<commit_failures::line> commit_failures::succeeded(std::int64_t now_ms) {
  if (!run_started_ms_) {
    return std::nullopt;
  }
  line out{line::kind::recovered, in_run_, now_ms - *run_started_ms_};
  run_started_ms_.reset();
  since_line_ = 0;
  in_run_ = 0;
  return out;
}

}  // namespace courier
