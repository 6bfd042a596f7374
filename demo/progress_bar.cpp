#include "demo/progress_bar.hpp"

#include <unistd.h>

namespace courier::demo {

progress_bar::progress_bar(std::FILE* out, std::size_t total, bool enabled)
    : out_(out), total_(total), enabled_(enabled), tty_(isatty(fileno(out)) != 0) {}

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
    std::fprintf(out_, "\r[%s] %3zu%% %zu/%zu %s\033[K", bar.c_str(), percent, done, total_,
                 note.c_str());
    std::fflush(out_);
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
  if (enabled_ && tty_) {
    std::fprintf(out_, "\n");
  }
}

}  // namespace courier::demo
