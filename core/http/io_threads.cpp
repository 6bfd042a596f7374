#include "core/http/io_threads.hpp"

#include <algorithm>

namespace courier::http {

io_threads::io_threads(std::size_t count) {
  const std::size_t n = std::max<std::size_t>(count, 1);
  runners_.reserve(n);
  contexts_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    runners_.push_back(std::make_unique<io_runner>(1));
    contexts_.push_back(&runners_.back()->context());
  }
}

void io_threads::stop() {
  for (auto& r : runners_) {
    r->stop();
  }
}

}  // namespace courier::http
