#include "core/model/record.hpp"

#include <gtest/gtest.h>

namespace courier {
namespace {

TEST(FindHeader, ReturnsTheFirstValueOfTheName) {
  const header_list headers{{"content-type", "text/plain"}, {"content-type", "application/xml"}};
  ASSERT_TRUE(find_header(headers, "content-type").has_value());
  EXPECT_EQ(*find_header(headers, "content-type"), "text/plain");
}

TEST(FindHeader, IsNulloptForANameTheRecordDoesNotCarry) {
  const header_list headers{{"courier.attempts", "3"}};
  EXPECT_FALSE(find_header(headers, "courier.attempt").has_value());
  EXPECT_FALSE(find_header(header_list{}, "courier.attempts").has_value());
}

TEST(FindHeader, KeepsAnEmptyValueApartFromAMissingOne) {
  const header_list headers{{"courier.error.response", ""}};
  ASSERT_TRUE(find_header(headers, "courier.error.response").has_value());
  EXPECT_TRUE(find_header(headers, "courier.error.response")->empty());
}

}  // namespace
}  // namespace courier
