#include "core/http/io_runner.hpp"

#include <algorithm>

#include <boost/asio/steady_timer.hpp>

#include "core/http/deferred_calls.hpp"
#include "core/http/io_failure.hpp"

namespace courier::http {

io_runner::io_runner(std::size_t threads)
    : ioc_(static_cast<int>(std::max<std::size_t>(threads, 1))),
      work_(boost::asio::make_work_guard(ioc_)) {
  const std::size_t count = std::max<std::size_t>(threads, 1);
  threads_.reserve(count);
  // The timer service and its reactor (epoll, eventfd, timerfd) are made here, in the caller's
  // thread: made by an io thread's first timer instead, they could meet a full descriptor table
  // and throw on that thread, outside any handler.
  static_cast<void>(boost::asio::steady_timer{ioc_});
  if (count == 1) {
    // The only thread of its io_context: handlers that defer a call find it here again.
    threads_.emplace_back([this] {
      deferred_calls calls{ioc_};
      const io_thread_deferrals_scope scope{calls};
      run_reporting_failures();
    });
    return;
  }
  // Several threads share the io_context, so a timer's handler may run on another thread than
  // the one that armed it: no deferred calls here (defer_on_this_io_thread returns false).
  for (std::size_t i = 0; i < count; ++i) {
    threads_.emplace_back([this] { run_reporting_failures(); });
  }
}

io_runner::~io_runner() { stop(); }

void io_runner::run_reporting_failures() {
  for (;;) {
    try {
      ioc_.run();
      return;  // stopped
    } catch (...) {
      // The exchange whose handler threw is lost; the others go on (asio allows run() again
      // after a handler's exception), so the process can drain while it stops.
      report_io_failure();
    }
  }
}

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
