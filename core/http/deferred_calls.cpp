#include "core/http/deferred_calls.hpp"

#include <utility>

#include <boost/system/error_code.hpp>

namespace courier::http {
namespace {

thread_local deferred_calls* this_thread_calls = nullptr;

}  // namespace

deferred_calls::deferred_calls(boost::asio::io_context& ioc) : timer_(ioc) {}

void deferred_calls::add(clock::duration delay, std::function<void()> call) {
  const auto at = clock::now() + delay;
  const bool earliest = calls_.empty() || at < calls_.begin()->first;
  calls_.emplace(at, std::move(call));
  if (earliest) {
    arm();
  }
}

void deferred_calls::arm() {
  timer_.expires_at(calls_.begin()->first);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) {
      return;  // re-armed for an earlier call (operation_aborted), or shutting down
    }
    fire();
  });
}

void deferred_calls::fire() {
  const auto now = clock::now();
  while (!calls_.empty() && calls_.begin()->first <= now) {
    auto call = std::move(calls_.begin()->second);
    calls_.erase(calls_.begin());
    call();  // may add more calls
  }
  if (!calls_.empty()) {
    arm();
  }
}

bool defer_on_this_io_thread(deferred_calls::clock::duration delay, std::function<void()> call) {
  if (this_thread_calls == nullptr) {
    return false;
  }
  this_thread_calls->add(delay, std::move(call));
  return true;
}

io_thread_deferrals_scope::io_thread_deferrals_scope(deferred_calls& calls)
    : previous_(this_thread_calls) {
  this_thread_calls = &calls;
}

io_thread_deferrals_scope::~io_thread_deferrals_scope() { this_thread_calls = previous_; }

}  // namespace courier::http
