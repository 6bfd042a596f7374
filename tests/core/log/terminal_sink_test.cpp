#include "core/log/terminal_sink.hpp"

#include <cstdio>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <spdlog/logger.h>

namespace courier::log {
namespace {

// A FILE whose bytes the test reads back.
class memory_file {
 public:
  memory_file() : file_(open_memstream(&data_, &size_)) {}
  ~memory_file() {
    std::fclose(file_);
    std::free(data_);
  }
  memory_file(const memory_file&) = delete;
  memory_file& operator=(const memory_file&) = delete;

  std::FILE* get() const { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string{data_, size_};
  }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::FILE* file_;
};

TEST(TerminalSink, WritesEachLineWholeWithANewline) {
  memory_file out;
  auto sink = std::make_shared<terminal_sink>(out.get());
  spdlog::logger logger{"test", sink};
  logger.info("one");
  logger.info("two");
  EXPECT_EQ(out.text(), "one\ntwo\n");
}

TEST(TerminalSink, AFooterIsClearedBeforeALineAndRedrawnBelowIt) {
  memory_file out;
  auto sink = std::make_shared<terminal_sink>(out.get());
  spdlog::logger logger{"test", sink};
  sink->set_footer(
      footer{[&] { std::fputs("\r\x1b[2K", out.get()); }, [&] { std::fputs("[bar]", out.get()); }});
  sink->locked([&] { std::fputs("[bar]", out.get()); });
  logger.info("a line");
  EXPECT_EQ(out.text(), "[bar]\r\x1b[2Ka line\n[bar]");

  sink->remove_footer();
  logger.info("after");
  EXPECT_EQ(out.text(), "[bar]\r\x1b[2Ka line\n[bar]after\n");
}

}  // namespace
}  // namespace courier::log
