#include "tools/redrive/progress.hpp"

#include <algorithm>
#include <string>

namespace courier::redrive {
namespace {

constexpr std::size_t bar_width = 30;
constexpr std::chrono::milliseconds redraw_interval{100};

}  // namespace

progress_bar::progress_bar(std::ostream& out, bool enabled) : out_(out), enabled_(enabled) {}

void progress_bar::update(const run_progress& p) {
  if (!enabled_) {
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < redraw_interval && p.read < p.total) {
    return;
  }
  last_draw_ = now;
  draw(p);
}

void progress_bar::draw(const run_progress& p) {
  const std::size_t done =
      p.total == 0 ? bar_width : std::min(bar_width, p.read * bar_width / p.total);
  out_ << '\r' << '[' << std::string(done, '#') << std::string(bar_width - done, '.') << "] "
       << p.read << '/' << p.total << " read, " << p.moved << " moved" << std::flush;
  drawn_ = true;
}

void progress_bar::finish() {
  if (enabled_ && drawn_) {
    out_ << '\n' << std::flush;
  }
}

}  // namespace courier::redrive
