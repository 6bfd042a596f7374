#include "core/log/terminal_sink.hpp"

#include <cstdio>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <spdlog/logger.h>

#include "tests/support/memory_file.hpp"

namespace courier::log {
namespace {

using courier::testing::memory_file;

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
