// An exception that escapes a handler on an io thread (a std::bad_alloc above all) is reported,
// never a silent std::terminate, and the thread goes on serving the other handlers.

#include "core/http/io_runner.hpp"

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/post.hpp>
#include <gtest/gtest.h>

#include "core/http/io_failure.hpp"

namespace courier::http {
namespace {

using namespace std::chrono_literals;

// What the installed handler was told, for the test thread to wait on.
class failure_record {
 public:
  void add(const std::string& what) {
    const std::lock_guard<std::mutex> lock{m_};
    reports_.push_back(what);
    cv_.notify_all();
  }
  bool wait_for(std::size_t n, std::chrono::milliseconds within) {
    std::unique_lock<std::mutex> lock{m_};
    return cv_.wait_for(lock, within, [&] { return reports_.size() >= n; });
  }
  std::vector<std::string> reports() {
    const std::lock_guard<std::mutex> lock{m_};
    return reports_;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::string> reports_;
};

// Installs a handler for one test and puts the previous one back.
struct installed_handler {
  explicit installed_handler(io_failure_handler h)
      : previous(set_io_failure_handler(std::move(h))) {}
  ~installed_handler() { set_io_failure_handler(std::move(previous)); }
  installed_handler(const installed_handler&) = delete;
  installed_handler& operator=(const installed_handler&) = delete;
  installed_handler(installed_handler&&) = delete;
  installed_handler& operator=(installed_handler&&) = delete;
  io_failure_handler previous;
};

TEST(IoRunner, ReportsABadAllocOnAnIoThreadAndGoesOnRunningTheOtherHandlers) {
  failure_record record;
  const installed_handler installed{[&](const std::string& what) { record.add(what); }};
  for (const std::size_t threads : {std::size_t{1}, std::size_t{2}}) {
    io_runner io{threads};
    boost::asio::post(io.context(), [] { throw std::bad_alloc{}; });
    std::promise<void> ran;
    boost::asio::post(io.context(), [&ran] { ran.set_value(); });
    EXPECT_EQ(ran.get_future().wait_for(5s), std::future_status::ready)
        << threads << " threads: the io thread stopped running handlers";
    io.stop();
  }
  ASSERT_TRUE(record.wait_for(2, 5s));
  for (const auto& what : record.reports()) {
    EXPECT_NE(what.find("bad_alloc"), std::string::npos) << what;
  }
}

TEST(IoRunnerDeathTest, WithoutAHandlerInstalledAThrowingHandlerEndsTheProcessWithCodeOne) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        io_runner io{1};
        boost::asio::post(io.context(), [] { throw std::runtime_error{"out of luck"}; });
        std::promise<void> never;
        never.get_future().wait_for(10s);  // the exit comes first
      },
      ::testing::ExitedWithCode(1), "io thread threw.*out of luck");
}

}  // namespace
}  // namespace courier::http
