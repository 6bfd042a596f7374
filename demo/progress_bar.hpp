#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace courier::demo {

// A one-line progress bar on a terminal; plain periodic lines elsewhere (CI logs).
class progress_bar {
 public:
  progress_bar(std::FILE* out, std::size_t total, bool enabled);
  void update(std::size_t done, const std::string& note);
  void finish();

 private:
  std::FILE* out_;
  std::size_t total_;
  bool enabled_;
  bool tty_;
  std::size_t last_reported_ = static_cast<std::size_t>(-1);
};

}  // namespace courier::demo
