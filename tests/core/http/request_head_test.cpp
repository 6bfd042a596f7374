// The request head courier writes before a record's bytes: its order, its replacements and the
// Content-Length nobody else can set.

#include "core/http/request_head.hpp"

#include <gtest/gtest.h>

namespace courier::http {
namespace {

request with(std::string body, std::vector<std::pair<std::string, std::string>> headers) {
  request r;
  r.body = std::move(body);
  r.headers = std::move(headers);
  return r;
}

TEST(RequestHead, WritesTheRequestLineTheDefaultsTheHeadersAndTheLengthOfTheBody) {
  const auto head = request_head(parse_endpoint("http://partner.example:8080/hook?v=1"),
                                 "courier/9", with("{\"n\":1}", {{"Idempotency-Key", "t:0:7"}}));
  EXPECT_EQ(head,
            "POST /hook?v=1 HTTP/1.1\r\n"
            "Host: partner.example:8080\r\n"
            "User-Agent: courier/9\r\n"
            "Content-Type: application/json\r\n"
            "Idempotency-Key: t:0:7\r\n"
            "Content-Length: 7\r\n\r\n");
}

TEST(RequestHead, AHeaderAlreadySetIsReplacedWhateverItsCaseAndARepeatedOneKeepsItsLastValue) {
  const auto head = request_head(
      parse_endpoint("http://h/"), "courier/9",
      with("", {{"user-agent", "partner-wants-this"}, {"X-Trace", "1"}, {"x-trace", "2"}}));
  EXPECT_EQ(head,
            "POST / HTTP/1.1\r\n"
            "Host: h\r\n"
            "User-Agent: partner-wants-this\r\n"
            "Content-Type: application/json\r\n"
            "X-Trace: 2\r\n"
            "Content-Length: 0\r\n\r\n");
}

TEST(RequestHead, TheBodysLengthIsCouriersOwnAndNoTransferEncodingGetsThrough) {
  const auto head = request_head(
      parse_endpoint("http://h/"), "courier/9",
      with("12345", {{"Content-Length", "999"}, {"transfer-encoding", "chunked"}, {"A", "b"}}));
  EXPECT_EQ(head,
            "POST / HTTP/1.1\r\n"
            "Host: h\r\n"
            "User-Agent: courier/9\r\n"
            "Content-Type: application/json\r\n"
            "A: b\r\n"
            "Content-Length: 5\r\n\r\n");
}

TEST(RequestHead, NoContentTypeWhenTheRequestHasNone) {
  auto r = with("x", {});
  r.content_type.clear();
  EXPECT_EQ(request_head(parse_endpoint("http://h/"), "c", r),
            "POST / HTTP/1.1\r\nHost: h\r\nUser-Agent: c\r\nContent-Length: 1\r\n\r\n");
}

}  // namespace
}  // namespace courier::http
