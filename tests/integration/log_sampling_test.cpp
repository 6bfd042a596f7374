// An outage must not flood the log: a receiver that rejects every record dead-letters all of
// them (the metrics count each one), while the log holds a sample of the per-record line.

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/log/log_output.hpp"
#include "tests/integration/stand.hpp"
#include "tests/support/temp_dir.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

// The process's log lines go to a file while it lives (JSON, as to any non-terminal).
class captured_log {
 public:
  explicit captured_log(const std::filesystem::path& path)
      : path_(path), file_(std::fopen(path.c_str(), "w")) {
    log::set_format(log::line_format::json);
    log::set_output(file_);
  }
  ~captured_log() {
    log::set_output(stderr);
    std::fclose(file_);
  }
  captured_log(const captured_log&) = delete;
  captured_log& operator=(const captured_log&) = delete;

  std::string text() const {
    std::fflush(file_);
    std::ifstream in{path_};
    return {std::istreambuf_iterator<char>{in}, {}};
  }

 private:
  std::filesystem::path path_;
  std::FILE* file_;
};

TEST(LogSampling, EveryRejectedRecordIsDeadLetteredButTheLogHoldsASampleOfTheLines) {
  mock::server_settings ws;
  ws.initial.fail_rate_400 = 1.0;
  stand s{1, ws};
  s.route().breaker.trip_on_permanent_run = 0;  // let every record through to the DLQ
  constexpr std::size_t n = 200;
  s.seed(n);
  const temp_dir dir{"log-sampling", temp_dir::keep_if_failed};
  const captured_log log{dir.path() / "courier.log"};
  const auto started = std::chrono::steady_clock::now();
  {
    caf::actor_system sys{s.sys_cfg};
    topology::pipeline p{sys, s.cfg, topology::pipeline_options{2s, 3}};
    const auto& m = *p.routes().front().metrics;
    ASSERT_TRUE(
        wait_until([&] { return m.deliveries[delivery_counter::dead_lettered].load() >= n; }, 60s))
        << "dead-lettered " << m.deliveries[delivery_counter::dead_lettered].load();
    p.stop();
    EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), n)
        << "the metrics count every record";
  }
  const auto took = std::chrono::steady_clock::now() - started;
  // 10 lines per 10 s window, and a window starts at most every 10 s.
  const auto windows = static_cast<std::size_t>(took / 10s) + 1;

  std::size_t lines = 0;
  std::uint64_t suppressed = 0;
  std::istringstream in{log.text()};
  std::string line;
  while (std::getline(in, line)) {
    const auto doc = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(doc.is_discarded()) << "every line is JSON: " << line;
    if (doc.value("event", "") == "record dead-lettered") {
      ++lines;
      suppressed += doc.value("suppressed", std::uint64_t{0});
    }
  }
  EXPECT_GE(lines, 1U);
  EXPECT_LE(lines, 10 * windows) << "over " << windows << " window(s)";
  EXPECT_LE(lines + suppressed, n) << "a suppressed count is of lines not written";
}

}  // namespace
}  // namespace courier::testing
