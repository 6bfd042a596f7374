#include "core/log/terminal_sink.hpp"

#include <utility>

namespace courier::log {

terminal_sink::terminal_sink(std::FILE* out) : out_(out) {}

void terminal_sink::set_output(std::FILE* out) {
  std::lock_guard<std::mutex> guard{mutex_};
  out_ = out;
}

void terminal_sink::set_footer(footer f) {
  std::lock_guard<std::mutex> guard{mutex_};
  footer_ = std::move(f);
}

void terminal_sink::remove_footer() {
  std::lock_guard<std::mutex> guard{mutex_};
  footer_ = footer{};
}

void terminal_sink::locked(const std::function<void()>& draw) {
  std::lock_guard<std::mutex> guard{mutex_};
  draw();
}

// The message is the finished line (json_log formats it); the sink adds only the newline.
void terminal_sink::sink_it_(const spdlog::details::log_msg& msg) {
  if (footer_.clear) {
    footer_.clear();
  }
  std::fwrite(msg.payload.data(), 1, msg.payload.size(), out_);
  std::fputc('\n', out_);
  if (footer_.redraw) {
    footer_.redraw();
  }
  std::fflush(out_);
}

void terminal_sink::flush_() { std::fflush(out_); }

}  // namespace courier::log
