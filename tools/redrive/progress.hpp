#pragma once

#include "core/redrive/run_summary.hpp"

#include <chrono>
#include <cstddef>
#include <ostream>

namespace courier::redrive {

// A one-line progress bar redrawn in place (with '\r'), at most ten times a second. Disabled,
// it prints nothing: main enables it only when stderr is a terminal.
class progress_bar {
 public:
  progress_bar(std::ostream& out, bool enabled);
  void update(const run_progress& p);  // a run's progress callback
  void finish();                       // ends the line

 private:
  void draw(const run_progress& p);

  std::ostream& out_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace courier::redrive
