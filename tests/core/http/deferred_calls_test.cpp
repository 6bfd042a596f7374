#include "core/http/deferred_calls.hpp"

#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <vector>

#include <boost/asio/post.hpp>
#include <gtest/gtest.h>

#include "core/http/io_runner.hpp"

namespace courier::http {
namespace {

using namespace std::chrono_literals;

constexpr auto deadline = 10s;

// Runs `f` on the runner's io thread and returns what it returned.
template <class F>
auto on_io_thread(io_runner& io, F f) {
  std::promise<decltype(f())> result;
  auto future = result.get_future();
  boost::asio::post(io.context(), [&result, &f] { result.set_value(f()); });
  EXPECT_EQ(future.wait_for(deadline), std::future_status::ready);
  return future.get();
}

TEST(DeferredCalls, NoIoThreadNoDeferral) {
  bool ran = false;
  EXPECT_FALSE(defer_on_this_io_thread(0ms, [&ran] { ran = true; }));
  EXPECT_FALSE(ran);
}

TEST(DeferredCalls, AnIoContextOfSeveralThreadsDefersNothing) {
  io_runner io{2};
  EXPECT_FALSE(on_io_thread(io, [] { return defer_on_this_io_thread(0ms, [] {}); }));
}

TEST(DeferredCalls, CallsRunOnTheIoThreadInTheOrderOfTheirDeadlines) {
  io_runner io{1};
  std::mutex m;
  std::vector<int> order;
  std::promise<void> all_ran;
  auto record = [&](int which) {
    const std::lock_guard<std::mutex> lock{m};
    order.push_back(which);
    if (order.size() == 3) {
      all_ran.set_value();
    }
  };
  const auto io_thread = on_io_thread(io, [&] {
    EXPECT_TRUE(defer_on_this_io_thread(30ms, [&] { record(3); }));
    EXPECT_TRUE(defer_on_this_io_thread(10ms, [&] { record(2); }));
    EXPECT_TRUE(defer_on_this_io_thread(0ms, [&] { record(1); }));
    return std::this_thread::get_id();
  });
  ASSERT_EQ(all_ran.get_future().wait_for(deadline), std::future_status::ready);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_NE(io_thread, std::this_thread::get_id());
}

TEST(DeferredCalls, ACallCanDeferTheNextOne) {
  io_runner io{1};
  std::promise<int> done;
  std::function<void(int)> again = [&](int left) {
    if (left == 0) {
      done.set_value(3);
      return;
    }
    EXPECT_TRUE(defer_on_this_io_thread(1ms, [&again, left] { again(left - 1); }));
  };
  boost::asio::post(io.context(), [&] { again(3); });
  auto f = done.get_future();
  ASSERT_EQ(f.wait_for(deadline), std::future_status::ready);
  EXPECT_EQ(f.get(), 3);
}

TEST(DeferredCalls, StoppingDropsTheCallsNotRunWithWhatTheyHold) {
  auto held = std::make_shared<int>(7);
  {
    io_runner io{1};
    EXPECT_TRUE(on_io_thread(io, [&] {
      return defer_on_this_io_thread(1h, [held] { ADD_FAILURE() << "ran at stop"; });
    }));
    EXPECT_EQ(held.use_count(), 2);
    io.stop();
  }
  EXPECT_EQ(held.use_count(), 1);
}

}  // namespace
}  // namespace courier::http
