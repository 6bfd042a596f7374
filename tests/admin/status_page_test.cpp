#include "admin/status_page.hpp"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

// GET /'s page: self-contained (nothing fetched from elsewhere), reading /state and nothing else,
// writing what it reads as text.
namespace courier::admin {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(StatusPageText, IsOneSelfContainedDocumentThatReadsStateAndWritesText) {
  const std::string page{status_page()};
  EXPECT_THAT(page, HasSubstr("<!doctype html>"));
  for (const char* external : {"http://", "https://", " src=", "<link", "@import"}) {
    EXPECT_THAT(page, Not(HasSubstr(external))) << "no external asset: " << external;
  }
  EXPECT_THAT(page, HasSubstr(R"(fetch("/state")"));
  EXPECT_THAT(page, HasSubstr("setInterval(refresh, 2000)")) << "it refreshes itself";
  EXPECT_THAT(page, Not(HasSubstr("innerHTML"))) << "data goes in as text, never as markup";
}

}  // namespace
}  // namespace courier::admin
