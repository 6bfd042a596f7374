#include "core/retry/receipt.hpp"

#include <gtest/gtest.h>

#include <string>

namespace courier {
namespace {

receipt sample() {
  receipt r;
  r.route = "shipments";
  r.origin = record_position{"brew.shipments.v1", 3, 42};
  r.attempts = 3;
  r.status = 202;
  r.first_attempt_ms = 1'765'000'000'000;
  r.delivered_ms = 1'765'000'004'250;
  r.response_headers = {{"X-Request-Id", "req-7f3a"}, {"X-Trace", "abc"}};
  r.instance = "courier-7d9f:4242";
  return r;
}

TEST(Receipt, RoundTripsThroughItsJsonValue) {
  const auto r = sample();
  const auto text = encode_receipt(r);
  EXPECT_NE(text.find(R"("origin":{"offset":42,"partition":3,"topic":"brew.shipments.v1"})"),
            std::string::npos)
      << text;
  EXPECT_EQ(decode_receipt(text), r);

  receipt bare;
  bare.origin = record_position{"t", 0, 0};
  EXPECT_EQ(decode_receipt(encode_receipt(bare)), bare) << "no headers, no instance";
}

TEST(Receipt, NamesItsEndpointOnlyOnARouteWithSeveral) {
  auto r = sample();
  EXPECT_EQ(encode_receipt(r).find("endpoint"), std::string::npos) << "a route with one";
  r.endpoint = "zoom";
  const auto text = encode_receipt(r);
  EXPECT_NE(text.find(R"("endpoint":"zoom")"), std::string::npos) << text;
  EXPECT_EQ(decode_receipt(text), r);
}

TEST(Receipt, APartnersHeaderThatIsNotUtf8IsReplacedNotThrownOn) {
  auto r = sample();
  r.response_headers = {{"X-Request-Id", std::string{"id-\xff\xfe"}}};
  std::string text;
  ASSERT_NO_THROW(text = encode_receipt(r));
  const auto back = decode_receipt(text);
  ASSERT_EQ(back.response_headers.size(), 1U);
  EXPECT_EQ(back.response_headers[0].second.rfind("id-", 0), 0U);
  EXPECT_NE(back.response_headers[0].second, r.response_headers[0].second);
}

TEST(Receipt, AValueThatIsNoReceiptNamesWhatIsWrong) {
  auto expect_error = [](const std::string& text, const std::string& says) {
    try {
      (void)decode_receipt(text);
      ADD_FAILURE() << "read: " << text;
    } catch (const receipt_error& e) {
      EXPECT_NE(std::string{e.what()}.find(says), std::string::npos) << e.what();
    }
  };
  expect_error("not json", "not JSON");
  expect_error("[1]", "not a JSON object");
  auto without = [](const char* name) {
    auto text = encode_receipt(sample());
    const auto at = text.find(std::string{"\""} + name + "\"");
    return text.replace(at + 1, 1, "_");
  };
  expect_error(without("route"), "route is missing");
  expect_error(without("offset"), "origin.offset is missing");
  expect_error(without("instance"), "instance is missing");
  auto text = encode_receipt(sample());
  text.replace(text.find("\"status\":202"), 12, "\"status\":\"202\"");
  expect_error(text, "status is not an integer");
  text = encode_receipt(sample());
  text.replace(text.find("[\"X-Trace\",\"abc\"]"), 17, "[\"X-Trace\"]");
  expect_error(text, "not a [name, value] pair");
}

}  // namespace
}  // namespace courier
