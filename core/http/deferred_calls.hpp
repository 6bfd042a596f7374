#pragma once

#include <chrono>
#include <functional>
#include <map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

namespace courier::http {

// Calls an io thread runs a little later, on one steady_timer armed for the earliest: what lets
// a handler gather work for a moment on its own thread, without waking another (a CAF delayed
// message would wake CAF's timer thread twice). An io_runner of one thread (each of io_threads'
// is) gives it one, on that thread's stack: touched by that thread only, gone before its
// io_context.
class deferred_calls {
 public:
  using clock = std::chrono::steady_clock;

  explicit deferred_calls(boost::asio::io_context& ioc);
  // The calls not run are dropped with their captures. The timer's destructor cancels its
  // wait, which never runs: the io_context has stopped when an io thread leaves run().
  ~deferred_calls() = default;

  deferred_calls(const deferred_calls&) = delete;
  deferred_calls& operator=(const deferred_calls&) = delete;

  void add(clock::duration delay, std::function<void()> call);

 private:
  void arm();
  void fire();

  boost::asio::steady_timer timer_;
  std::multimap<clock::time_point, std::function<void()>> calls_;
};

// Runs `call` on the calling io thread (an io_runner's only one) after `delay`. False, and
// `call` dropped, when the calling thread is no io thread: the caller does the work now.
bool defer_on_this_io_thread(deferred_calls::clock::duration delay, std::function<void()> call);

// For io_runner: the calling thread's deferred calls while it runs its io_context.
class io_thread_deferrals_scope {
 public:
  explicit io_thread_deferrals_scope(deferred_calls& calls);
  ~io_thread_deferrals_scope();

  io_thread_deferrals_scope(const io_thread_deferrals_scope&) = delete;
  io_thread_deferrals_scope& operator=(const io_thread_deferrals_scope&) = delete;

 private:
  deferred_calls* previous_;
};

}  // namespace courier::http
