#include "demo/progress_bar.hpp"

#include <unistd.h>

#include "core/log/log_output.hpp"

namespace courier::demo {

progress_bar::progress_bar(std::FILE* out, std::size_t total, bool enabled)
    : progress_bar(out, total, enabled, isatty(fileno(out)) != 0) {}

progress_bar::progress_bar(std::FILE* out, std::size_t total, bool enabled, bool terminal)
    : out_(out), total_(total), enabled_(enabled), tty_(terminal) {}

progress_bar::~progress_bar() {
  if (footer_) {
    log::remove_footer();
  }
}

void progress_bar::update(std::size_t done, const std::string& note) {
  if (!enabled_ || total_ == 0) {
    return;
  }
  const auto percent = done * 100 / total_;
  if (tty_) {
    constexpr std::size_t width = 40;
    const auto filled = done * width / total_;
    std::string bar(filled, '#');
    bar.resize(width, '.');
    char text[64];
    std::snprintf(text, sizeof text, "] %3zu%% %zu/%zu ", percent, done, total_);
    if (!footer_) {
      footer_ = true;
      log::set_footer(log::footer{[this] { clear(); }, [this] { redraw(); }});
    }
    log::with_output_locked([&] {
      line_ = "[" + bar + text + note;
      redraw();
      std::fflush(out_);
    });
    return;
  }
  // Without a terminal: one line per 10%.
  const auto step = percent / 10;
  if (step != last_reported_) {
    last_reported_ = step;
    std::fprintf(out_, "progress: %zu/%zu (%zu%%) %s\n", done, total_, percent, note.c_str());
  }
}

void progress_bar::finish() {
  if (!enabled_ || !tty_) {
    return;
  }
  if (footer_) {
    footer_ = false;
    log::remove_footer();
  }
  std::fprintf(out_, "\n");
  std::fflush(out_);
}

// Only under the log's lock (the footer callbacks, update).
void progress_bar::clear() const { std::fputs("\r\x1b[2K", out_); }

void progress_bar::redraw() const {
  if (!line_.empty()) {
    std::fprintf(out_, "\r%s\x1b[K", line_.c_str());
  }
}

}  // namespace courier::demo
