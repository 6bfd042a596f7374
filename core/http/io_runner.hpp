#pragma once

#include <cstddef>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

namespace courier::http {

// An io_context with its own threads. The work guard keeps run() going while nothing is
// pending, so clients and servers can be created after start. An exception that escapes a
// handler is caught on its thread and reported (io_failure.hpp), never a silent terminate.
class io_runner {
 public:
  explicit io_runner(std::size_t threads = 1);
  ~io_runner();

  io_runner(const io_runner&) = delete;
  io_runner& operator=(const io_runner&) = delete;

  boost::asio::io_context& context() { return ioc_; }

  // Stops the io_context and joins the threads. Handlers still pending are not run; they
  // are destroyed with the io_context. Idempotent; must not be called from an io thread.
  void stop();

 private:
  // An io thread's loop: run() until stopped, reporting each exception a handler lets escape.
  void run_reporting_failures();

  boost::asio::io_context ioc_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
};

}  // namespace courier::http
