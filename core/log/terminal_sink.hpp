#pragma once

#include <cstdio>
#include <functional>
#include <mutex>

#include <spdlog/sinks/base_sink.h>

namespace courier::log {

// A line kept below the log lines on a terminal (the demo's progress bar): `clear` erases it
// from the screen, `redraw` writes it again. Both run under the sink's lock.
struct footer {
  std::function<void()> clear;
  std::function<void()> redraw;
};

// Writes each log line whole to a FILE (stderr), and keeps a footer, when one is set, on its
// own bottom line: clear it, write the line, redraw it, so the two never share a line.
class terminal_sink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit terminal_sink(std::FILE* out);

  void set_output(std::FILE* out);
  void set_footer(footer f);
  void remove_footer();
  // Runs `draw` under the sink's lock: the footer's owner updates it without a log line
  // landing in the middle.
  void locked(const std::function<void()>& draw);

 private:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override;

  std::FILE* out_;
  footer footer_;
};

}  // namespace courier::log
