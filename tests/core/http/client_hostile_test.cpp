// The client against hostile receivers at scale: 200 answers in a row, each hostile one
// offering 256 MiB (served lazily, until the client hangs up), an honest 200 between them that
// must still be delivered, and the peak growth of the process's resident set measured
// (tests/support/rss.hpp) and bounded far below what was offered.

#include "core/http/client.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <gtest/gtest.h>

#include "core/http/endpoint.hpp"
#include "core/http/io_runner.hpp"
#include "tests/core/http/scripted_server.hpp"
#include "tests/support/response_waiter.hpp"
#include "tests/support/rss.hpp"

namespace courier::http {
namespace {

using namespace std::chrono_literals;
using courier::testing::peak_rss_growth;
using courier::testing::rss_under_sanitizer;
using testing::delivery;
using testing::post_and_wait;
using testing::scripted_server;
using tcp = boost::asio::ip::tcp;

constexpr std::uint64_t offered_per_answer = std::uint64_t{256} << 20;  // 256 MiB
constexpr int answers_in_a_row = 200;
// Far below the tens of GiB offered in a row; sanitizers add shadow memory and a quarantine.
constexpr std::size_t growth_bound_kib = (rss_under_sanitizer ? 320 : 32) * 1024;

// A hostile answer: `head`, then `piece` again and again, never an end. An empty `piece`: an
// honest answer, all in `head`.
struct hostile_answer {
  std::string head;
  std::string piece;
};

std::string repeated(const std::string& unit, std::size_t at_least) {
  std::string out;
  while (out.size() < at_least) {
    out += unit;
  }
  return out;
}

std::vector<hostile_answer> endless_bodies() {
  const std::string ok = "HTTP/1.1 200 OK\r\n";
  const std::string bytes(65536, 'z');
  return {
      // Chunks of 4 KiB, never a last chunk.
      {ok + "Transfer-Encoding: chunked\r\n\r\n",
       repeated("1000\r\n" + std::string(4096, 'z') + "\r\n", 65536)},
      // One chunk that declares 256 MiB.
      {ok + "Transfer-Encoding: chunked\r\n\r\n10000000\r\n", bytes},
      // No length at all: the body runs until the connection closes.
      {ok + "Connection: close\r\n\r\n", bytes},
      // An honest 256 MiB Content-Length.
      {ok + "Content-Length: 268435456\r\n\r\n", bytes},
  };
}

std::vector<hostile_answer> endless_heads() {
  return {
      // A status line whose reason never ends.
      {"HTTP/1.1 200 ", std::string(65536, 'r')},
      // A header value that never ends.
      {"HTTP/1.1 200 OK\r\nX-Endless: ", std::string(65536, 'h')},
      // Header lines that never end.
      {"HTTP/1.1 200 OK\r\n", repeated("X-Filler: " + std::string(100, 'f') + "\r\n", 65536)},
  };
}

// Writes the answer until `offered_per_answer` bytes went out, the client hung up or the
// deadline passed; returns the bytes written.
std::uint64_t offer(tcp::socket& s, const hostile_answer& a) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  boost::system::error_code ec;
  std::uint64_t sent = boost::asio::write(s, boost::asio::buffer(a.head), ec);
  while (!ec && !a.piece.empty() && sent < offered_per_answer &&
         std::chrono::steady_clock::now() < deadline) {
    sent += boost::asio::write(s, boost::asio::buffer(a.piece), ec);
  }
  return sent;
}

struct run_figures {
  std::size_t growth_kib = 0;
  std::string described;
  std::uint64_t sent_bytes = 0;
  std::chrono::milliseconds elapsed{};
};

// Between the hostile ones, the other records' answers: a plain 200 each.
const hostile_answer honest{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                            ""};

// One warm-up answer (the client's pool and buffers come into being), then the peak reset and
// `answers_in_a_row` answers, cycling through `hostile` followed by one honest answer, one
// request after the other: each hostile one ends in response_too_large with at most the cap
// of body, and each honest one between them is delivered (the client goes on delivering).
run_figures answer_in_a_row(const std::vector<hostile_answer>& hostile) {
  auto answers = hostile;
  answers.push_back(honest);
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> sent{0};
  scripted_server server(answers_in_a_row + 1, [&](tcp::socket& s) {
    const auto& answer = answers[next++ % answers.size()];
    scripted_server::read_request(s);
    sent += offer(s, answer);
  });
  io_runner io;
  client_settings settings;  // the default caps: 64 KiB of body, 8 KiB of headers
  settings.max_connections = 1;
  settings.allow_private_targets = true;
  client c(io.context(), parse_endpoint(server.url()), settings);

  const auto warm_up = post_and_wait(c, delivery("{}", "warm-up"));
  EXPECT_EQ(warm_up.error, transport_error::response_too_large) << warm_up.error_message;

  run_figures figures;
  const peak_rss_growth growth;
  const auto start = std::chrono::steady_clock::now();
  int honest_asked = 0;
  int delivered = 0;
  for (int i = 0; i < answers_in_a_row; ++i) {
    const auto r = post_and_wait(c, delivery("{}", "k" + std::to_string(i)));
    // The warm-up took answer 0, so request i gets answer i + 1 of the cycle.
    if ((static_cast<std::size_t>(i) + 1) % answers.size() == answers.size() - 1) {
      ++honest_asked;
      EXPECT_EQ(r.error, transport_error::none) << i << ": " << r.error_message;
      EXPECT_EQ(r.status, 200) << i;
      delivered += r.status == 200 && r.error == transport_error::none ? 1 : 0;
    } else {
      EXPECT_EQ(r.error, transport_error::response_too_large) << i << ": " << r.error_message;
    }
    EXPECT_LE(r.body.size(), settings.max_response_bytes);
  }
  EXPECT_GT(honest_asked, 0);
  EXPECT_EQ(delivered, honest_asked) << "the honest answers between the hostile ones";
  figures.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  EXPECT_TRUE(server.finished_within(10s)) << "the client hung up on every endless answer";
  EXPECT_TRUE(growth.measured()) << "no VmRSS/VmHWM in /proc/self/status";
  figures.growth_kib = growth.growth_kib();
  figures.described = growth.describe();
  figures.sent_bytes = sent;
  return figures;
}

void report(const char* what, const run_figures& f) {
  std::cout << "[ figures  ] " << answers_in_a_row << " answers in a row (" << what
            << " offering 256 MiB each, an honest 200 after each cycle of them), "
            << f.sent_bytes / (1024 * 1024) << " MiB written before the client hung up, "
            << f.elapsed.count() << " ms: " << f.described << "\n";
  ::testing::Test::RecordProperty("peak_rss_growth_kib", std::to_string(f.growth_kib));
}

// The measurement itself: 64 MiB touched and freed shows as a peak, so a small figure below is
// the client's, not a blind spot.
TEST(HttpClientHostile, ThePeakGrowthSeesSixtyFourMebibytesTouched) {
  const peak_rss_growth growth;
  {
    std::vector<char> touched(std::size_t{64} << 20);
    for (std::size_t i = 0; i < touched.size(); i += 4096) {
      touched[i] = 1;
    }
    EXPECT_EQ(touched[4096], 1);
  }
  EXPECT_TRUE(growth.measured());
  EXPECT_GE(growth.growth_kib(), std::size_t{60} * 1024) << growth.describe();
  std::cout << "[ figures  ] 64 MiB touched: " << growth.describe() << "\n";
}

TEST(HttpClientHostile, TwoHundredEndlessBodiesInARowCostBoundedMemory) {
  const auto figures = answer_in_a_row(endless_bodies());
  report("endless bodies", figures);
  EXPECT_LT(figures.growth_kib, growth_bound_kib) << figures.described;
}

TEST(HttpClientHostile, TwoHundredEndlessHeadersInARowCostBoundedMemory) {
  const auto figures = answer_in_a_row(endless_heads());
  report("endless heads", figures);
  EXPECT_LT(figures.growth_kib, growth_bound_kib) << figures.described;
}

// Beast 1.74 counts only chunk sizes against the body limit: a chunk line whose extension never
// ends, or a trailer that never ends, was buffered whole until the request's timeout. The
// connection's read buffer has a maximum (read_buffer_limit, about 76 KiB with the default
// caps): the request ends at once as response_too_large, and the client hangs up.
TEST(HttpClientHostile, AnEndlessChunkExtensionOrTrailerEndsTheRequestAtOnceAsTooLarge) {
  constexpr std::uint64_t offered = std::uint64_t{8} << 20;  // 8 MiB, then the server stops
  const std::string chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (const auto& [what, answer] :
       {std::pair<std::string, hostile_answer>{"extension",
                                               {chunked + "1;", std::string(4096, 'a')}},
        std::pair<std::string, hostile_answer>{
            "trailer", {chunked + "0\r\nX-Trailer: ", std::string(4096, 't')}}}) {
    std::atomic<std::uint64_t> sent{0};
    scripted_server server(1, [&, &a = answer](tcp::socket& s) {
      scripted_server::read_request(s);
      const auto deadline = std::chrono::steady_clock::now() + 10s;
      boost::system::error_code ec;
      std::uint64_t n = boost::asio::write(s, boost::asio::buffer(a.head), ec);
      while (!ec && n < offered && std::chrono::steady_clock::now() < deadline) {
        n += boost::asio::write(s, boost::asio::buffer(a.piece), ec);
      }
      sent = n;
    });
    io_runner io;
    client_settings settings;
    settings.timeout = 10s;  // far longer than the answer may take
    settings.max_connections = 1;
    settings.allow_private_targets = true;
    client c(io.context(), parse_endpoint(server.url()), settings);
    const auto start = std::chrono::steady_clock::now();
    const auto r = post_and_wait(c, delivery("{}", "k-" + what), 15s);
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(r.error, transport_error::response_too_large) << what << ": " << r.error_message;
    EXPECT_NE(r.error_message.find("chunk line or trailer"), std::string::npos)
        << what << ": " << r.error_message;
    EXPECT_LT(took, 3s) << what << ": ended by the timeout, not by the buffer's maximum";
    ASSERT_TRUE(server.finished_within(10s)) << what;
    EXPECT_LT(sent.load(), offered) << what << ": the client read all that was offered";
  }
}

}  // namespace
}  // namespace courier::http
