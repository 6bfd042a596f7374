// The parser every webhook answer is read with: what it keeps of an answer (status, body, the
// first Retry-After), both framings, the caps, and what it refuses. Fed in pieces, as a socket
// would, to check that nothing depends on an answer arriving in one read.

#include "core/http/response_reader.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <gtest/gtest.h>

namespace courier::http {
namespace {

namespace beast_http = boost::beast::http;

// Feeds `bytes` `piece` bytes at a time, keeping what the parser did not consume, as
// beast::http::read does; returns the first error, or none once the message is done.
boost::beast::error_code feed(response_parser& parser, std::string_view bytes, std::size_t piece) {
  std::string pending;
  boost::beast::error_code ec;
  for (std::size_t at = 0; at < bytes.size() && !parser.is_done(); at += piece) {
    pending.append(bytes.substr(at, piece));
    const auto used = parser.put(boost::asio::buffer(pending), ec);
    if (ec == beast_http::error::need_more) {
      ec = {};
    }
    if (ec) {
      return ec;
    }
    pending.erase(0, used);
  }
  while (!pending.empty() && !parser.is_done()) {
    const auto used = parser.put(boost::asio::buffer(pending), ec);
    if (ec || used == 0) {
      return ec ? ec : beast_http::error::need_more;
    }
    pending.erase(0, used);
  }
  return parser.is_done() ? boost::beast::error_code{} : beast_http::error::need_more;
}

response_parser limited(std::size_t body = 64, std::uint32_t header = 256) {
  response_parser p;
  limit(p, response_limits{body, header});
  p.eager(true);
  return p;
}

TEST(ResponseReader, KeepsTheStatusTheBodyAndTheFirstRetryAfterWhateverThePieces) {
  const std::string answer =
      "HTTP/1.1 429 Too Many Requests\r\nServer: nginx\r\nretry-after: 7\r\n"
      "Retry-After: 99\r\nContent-Length: 11\r\n\r\nslow down!!";
  for (const std::size_t piece : {1U, 3U, 17U, 1000U}) {
    auto p = limited();
    ASSERT_FALSE(feed(p, answer, piece)) << "piece " << piece;
    EXPECT_EQ(p.status(), 429);
    EXPECT_EQ(p.body(), "slow down!!");
    ASSERT_TRUE(p.retry_after().has_value());
    EXPECT_EQ(*p.retry_after(), "7");
    EXPECT_TRUE(p.keep_alive());
  }
}

// routes[].receipts.response_headers: the fields named, first value each, whatever their case,
// in the order named; one the answer lacks is absent.
TEST(ResponseReader, KeepsTheFieldsItIsToldToKeep) {
  const std::string answer =
      "HTTP/1.1 202 Accepted\r\nx-request-id: req-1\r\nX-Request-Id: req-2\r\n"
      "X-Trace: t-9\r\nContent-Length: 0\r\n\r\n";
  const std::vector<std::string> names{"X-Trace", "X-Request-ID", "X-Missing"};
  for (const std::size_t piece : {1U, 5U, 1000U}) {
    auto p = limited();
    p.keep_fields(&names);
    ASSERT_FALSE(feed(p, answer, piece)) << "piece " << piece;
    EXPECT_EQ(p.kept_fields(), (std::vector<std::pair<std::string, std::string>>{
                                   {"X-Trace", "t-9"}, {"X-Request-ID", "req-1"}}));
  }
  auto none = limited();
  ASSERT_FALSE(feed(none, answer, 1000));
  EXPECT_TRUE(none.kept_fields().empty()) << "told nothing: keeps nothing";
}

TEST(ResponseReader, ReadsAChunkedBodyAndAnAnswerWithoutRetryAfter) {
  const std::string answer =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
  for (const std::size_t piece : {1U, 4U, 1000U}) {
    auto p = limited();
    ASSERT_FALSE(feed(p, answer, piece)) << "piece " << piece;
    EXPECT_EQ(p.status(), 200);
    EXPECT_EQ(p.body(), "hello world");
    EXPECT_FALSE(p.retry_after().has_value());
  }
}

TEST(ResponseReader, AnAnswerThatClosesTheConnectionIsNotKeptAlive) {
  auto close = limited();
  ASSERT_FALSE(
      feed(close, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", 1000));
  EXPECT_FALSE(close.keep_alive());
  auto old = limited();
  ASSERT_FALSE(feed(old, "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 1000));
  EXPECT_FALSE(old.keep_alive());
}

TEST(ResponseReader, ABodyUntilCloseNeedsTheEndOfTheStream) {
  auto p = limited();
  EXPECT_EQ(feed(p, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\npartial", 1000),
            beast_http::error::need_more);
  EXPECT_TRUE(p.need_eof());
  EXPECT_EQ(p.body(), "partial");
}

TEST(ResponseReader, RefusesABodyOverItsCapDeclaredOrChunked) {
  auto declared = limited(/*body=*/10);
  EXPECT_EQ(feed(declared, "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n01234567890", 1000),
            beast_http::error::body_limit);
  EXPECT_TRUE(declares_too_large(declared, response_limits{10, 256}));

  auto chunked = limited(/*body=*/10);
  EXPECT_EQ(feed(chunked,
                 "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                 "6\r\n012345\r\n6\r\n678901\r\n0\r\n\r\n",
                 3),
            beast_http::error::body_limit);
  EXPECT_LE(chunked.body().size(), 10U);
}

TEST(ResponseReader, RefusesHeadersOverTheirCap) {
  auto p = limited(/*body=*/64, /*header=*/64);
  const std::string answer =
      "HTTP/1.1 200 OK\r\nX-Padding: " + std::string(100, 'x') + "\r\nContent-Length: 0\r\n\r\n";
  EXPECT_EQ(feed(p, answer, 1000), beast_http::error::header_limit);
}

TEST(ResponseReader, RefusesWhatIsNotAStatusLine) {
  auto request = limited();
  EXPECT_TRUE(feed(request, "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 1000));
  EXPECT_EQ(request.status(), 0);
  auto garbage = limited();
  EXPECT_TRUE(feed(garbage, "SSH-2.0-OpenSSH_9.2\r\n\r\n", 1000));
}

}  // namespace
}  // namespace courier::http
