#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>

namespace courier::redrive {

// A one-line progress bar redrawn in place (with '\r'), at most ten times a second. Disabled,
// it prints nothing: main enables it only when stderr is a terminal.
class progress_bar {
 public:
  progress_bar(std::ostream& out, bool enabled, std::size_t total);
  void update(std::size_t seen, std::size_t moved);
  void finish();  // ends the line

 private:
  void draw(std::size_t seen, std::size_t moved);

  std::ostream& out_;
  bool enabled_;
  bool drawn_ = false;
  std::size_t total_;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace courier::redrive
