#include "demo/progress_bar.hpp"

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "core/log/json_log.hpp"
#include "core/log/log_output.hpp"
#include "tests/support/memory_file.hpp"

namespace courier::demo {
namespace {

// A FILE whose bytes the test reads back, and the log writing to it meanwhile.
class captured_terminal {
 public:
  captured_terminal() {
    log::set_output(file_.get());
    log::set_format(log::line_format::human);
  }
  ~captured_terminal() { log::set_output(stderr); }
  captured_terminal(const captured_terminal&) = delete;
  captured_terminal& operator=(const captured_terminal&) = delete;

  std::FILE* get() const { return file_.get(); }
  std::string text() { return file_.text(); }

 private:
  courier::testing::memory_file file_;
};

const std::string clear_line = "\r\x1b[2K";

TEST(ProgressBar, ALogLineClearsTheBarIsWrittenAndTheBarIsRedrawnBelowIt) {
  captured_terminal term;
  {
    progress_bar bar{term.get(), 10, /*enabled=*/true, /*terminal=*/true};
    bar.update(5, "breaker closed");
    const std::string drawn =
        "\r[####################....................]  50% 5/10 "
        "breaker closed\x1b[K";
    EXPECT_EQ(term.text(), drawn);

    log::info("partitions assigned", {{"route", "shipments"}});
    const auto out = term.text();
    ASSERT_EQ(out.rfind(drawn + clear_line, 0), 0U) << "bar, then clear: " << out;
    const auto line_at = drawn.size() + clear_line.size();
    const auto newline = out.find('\n', line_at);
    ASSERT_NE(newline, std::string::npos) << out;
    const auto line = out.substr(line_at, newline - line_at);
    EXPECT_NE(line.find(" INFO  partitions assigned route=shipments"), std::string::npos) << line;
    EXPECT_EQ(out.substr(newline + 1), drawn) << "the bar again, below the line";

    bar.finish();
    EXPECT_EQ(term.text().back(), '\n');
  }
  // Finished: a log line is just the line.
  const auto before = term.text().size();
  log::warn("after the bar");
  const auto rest = term.text().substr(before);
  EXPECT_EQ(rest.find('\r'), std::string::npos) << rest;
  EXPECT_NE(rest.find("WARN  after the bar\n"), std::string::npos) << rest;
}

TEST(ProgressBar, WithoutATerminalItWritesAPlainLineEveryTenPercentAndNoFooter) {
  captured_terminal term;
  progress_bar bar{term.get(), 10, /*enabled=*/true, /*terminal=*/false};
  bar.update(1, "n");
  bar.update(1, "n");
  EXPECT_EQ(term.text(), "progress: 1/10 (10%) n\n");
  log::info("e");
  EXPECT_EQ(term.text().find('\r'), std::string::npos);
}

}  // namespace
}  // namespace courier::demo
