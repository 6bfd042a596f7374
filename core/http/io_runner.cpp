#include "core/http/io_runner.hpp"

#include <algorithm>

namespace courier::http {

io_runner::io_runner(std::size_t threads)
    : ioc_(static_cast<int>(std::max<std::size_t>(threads, 1))),
      work_(boost::asio::make_work_guard(ioc_)) {
  const std::size_t count = std::max<std::size_t>(threads, 1);
  threads_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    threads_.emplace_back([this] { ioc_.run(); });
  }
}

io_runner::~io_runner() { stop(); }

void io_runner::stop() {
  work_.reset();
  ioc_.stop();
  for (auto& t : threads_) {
    if (t.joinable()) {
      t.join();
    }
  }
  threads_.clear();
}

}  // namespace courier::http
