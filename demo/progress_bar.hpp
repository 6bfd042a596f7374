#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace courier::demo {

// A one-line progress bar on a terminal; plain periodic lines elsewhere (CI logs). On a
// terminal the bar is the log's footer (core/log): a log line clears it, is written, and the
// bar is redrawn below it, so the two never share a line.
class progress_bar {
 public:
  // `terminal`: whether `out` is one (isatty, unless a test says).
  progress_bar(std::FILE* out, std::size_t total, bool enabled);
  progress_bar(std::FILE* out, std::size_t total, bool enabled, bool terminal);
  ~progress_bar();
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;

  void update(std::size_t done, const std::string& note);
  void finish();

 private:
  void clear() const;
  void redraw() const;

  std::FILE* out_;
  std::size_t total_;
  bool enabled_;
  bool tty_;
  bool footer_ = false;  // registered with the log
  std::string line_;     // the bar as last drawn
  std::size_t last_reported_ = static_cast<std::size_t>(-1);
};

}  // namespace courier::demo
