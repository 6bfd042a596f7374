#include "tools/redrive/progress.hpp"

#include <algorithm>
#include <string>

namespace courier::redrive {
namespace {

constexpr std::size_t bar_width = 30;
constexpr std::chrono::milliseconds redraw_interval{100};

}  // namespace

progress_bar::progress_bar(std::ostream& out, bool enabled, std::size_t total)
    : out_(out), enabled_(enabled), total_(total) {}

void progress_bar::update(std::size_t seen, std::size_t moved) {
  if (!enabled_) {
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < redraw_interval && seen < total_) {
    return;
  }
  last_draw_ = now;
  draw(seen, moved);
}

void progress_bar::draw(std::size_t seen, std::size_t moved) {
  const std::size_t done = total_ == 0 ? bar_width : std::min(bar_width, seen * bar_width / total_);
  out_ << '\r' << '[' << std::string(done, '#') << std::string(bar_width - done, '.') << "] "
       << seen << '/' << total_ << " read, " << moved << " moved" << std::flush;
  drawn_ = true;
}

void progress_bar::finish() {
  if (enabled_ && drawn_) {
    out_ << '\n' << std::flush;
  }
}

}  // namespace courier::redrive
