#include "core/http/client.hpp"
#include "tests/core/http/partner_resolver.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/http/endpoint.hpp"
#include "core/http/io_runner.hpp"
#include "core/http/io_threads.hpp"
#include "mock_webhook/server.hpp"
#include "tests/support/response_waiter.hpp"
#include "tests/core/http/held_lookups.hpp"
#include "tests/core/http/scripted_server.hpp"

namespace courier::http {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::delivery;
using testing::post_and_wait;
using testing::response_waiter;
using testing::scripted_server;
using tcp = boost::asio::ip::tcp;

client_settings quick(std::size_t max_connections = 4,
                      std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  client_settings s;
  s.max_connections = max_connections;
  s.timeout = timeout;
  s.allow_private_targets = true;  // every server here listens on loopback
  return s;
}

// A listening socket nobody accepts from: the kernel completes the handshake, then silence.
struct silent_listener {
  boost::asio::io_context ioc;
  tcp::acceptor acceptor{ioc, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)};
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()) + "/hook";
  }
};

// An address that never answers a connect, as a dead host whose SYNs are dropped: a listener
// with a backlog of 0 whose one queued connection is never accepted, so the kernel drops every
// further SYN (a refused connect would fail at once, which any address list survives).
struct blackhole {
  boost::asio::io_context ioc;
  tcp::acceptor acceptor{ioc};
  tcp::socket filler{ioc};
  blackhole(const std::string& address, std::uint16_t port) {
    const tcp::endpoint at(boost::asio::ip::make_address(address), port);
    acceptor.open(at.protocol());
    acceptor.bind(at);
    acceptor.listen(0);
    filler.connect(acceptor.local_endpoint());  // fills the accept queue
  }
  std::uint16_t port() const { return acceptor.local_endpoint().port(); }
};

// "partner.example" resolves to `addresses`, in that order.
client_settings resolving_to(std::vector<std::string> addresses, client_settings s) {
  s.resolver = testing::partner_resolving_to(std::move(addresses));
  return s;
}

std::string partner_url(std::uint16_t port) {
  return "http://partner.example:" + std::to_string(port) + "/deliver";  // the mock's path
}

TEST(HttpClient, ReusesOneConnectionForSequentialRequests) {
  mock::server partner{mock::server_settings{}};
  partner.start();
  io_runner io;
  client c(io.context(), parse_endpoint(partner.url()), quick());
  for (int i = 0; i < 5; ++i) {
    const auto r = post_and_wait(c, delivery("{}", "t:0:" + std::to_string(i)));
    ASSERT_EQ(r.status, 200) << r.error_message;
    EXPECT_EQ(r.reused_connection, i > 0);
  }
  EXPECT_EQ(c.connections_opened(), 1U);
  EXPECT_EQ(c.idle_connections(), 1U);
}

// A connection past max_connection_age is closed after its answer, so the next request resolves
// the host again (a partner that moved its addresses gets the traffic). At 0 every connection
// carries one request.
TEST(HttpClient, AConnectionPastItsAgeIsClosedAfterItsAnswerAndTheNextOneIsNew) {
  for (const auto age : {std::chrono::milliseconds{0}, std::chrono::milliseconds{60'000}}) {
    scripted_server server(3, [](tcp::socket& s) {
      for (int i = 0; i < 3; ++i) {
        if (scripted_server::read_request(s).target().empty()) {
          return;  // the client closed the connection
        }
        scripted_server::write_raw(s, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
      }
    });
    io_runner io;
    auto settings = quick(1);
    settings.max_connection_age = age;
    client c(io.context(), parse_endpoint(server.url()), settings);
    for (int i = 0; i < 3; ++i) {
      const auto r = post_and_wait(c, delivery("{}", "k" + std::to_string(i)));
      EXPECT_EQ(r.status, 200) << r.error_message;
      EXPECT_EQ(r.reused_connection, age.count() != 0 && i > 0) << age.count() << " ms, " << i;
    }
    EXPECT_EQ(c.connections_opened(), age.count() == 0 ? 3U : 1U) << age.count() << " ms";
  }
}

TEST(HttpClient, NeverOpensMoreThanMaxConnectionsAndQueuesTheRest) {
  mock::server_settings settings;
  settings.initial.latency = 20ms;
  mock::server partner{settings};
  partner.start();
  io_runner io;
  client c(io.context(), parse_endpoint(partner.url()), quick(/*max_connections=*/4));
  response_waiter waiter;
  for (int i = 0; i < 50; ++i) {
    c.post(delivery("{}", "t:0:" + std::to_string(i)), waiter.callback());
  }
  ASSERT_TRUE(waiter.wait_for(50));
  for (const auto& r : waiter.responses()) {
    EXPECT_EQ(r.status, 200) << r.error_message;
  }
  EXPECT_EQ(c.connections_opened(), 4U);
  EXPECT_EQ(c.idle_connections(), 4U);
  EXPECT_EQ(partner.snapshot().ok, 50U);
}

// Every answer of `count` posts, with the threads their callbacks ran on.
struct threads_seen {
  response_waiter waiter;
  std::mutex mutex;
  std::set<std::thread::id> ids;

  void post_all(client& c, int count) {
    for (int i = 0; i < count; ++i) {
      c.post(delivery("{}", "t:0:" + std::to_string(i)), [this](response r) {
        {
          const std::lock_guard<std::mutex> lock(mutex);
          ids.insert(std::this_thread::get_id());
        }
        waiter.callback()(std::move(r));
      });
    }
  }

  void expect_all_delivered() const {
    for (const auto& r : waiter.responses()) {
      EXPECT_EQ(r.status, 200) << r.error_message;
    }
  }
};

TEST(HttpClient, SplitsItsConnectionsOverSeveralIoThreads) {
  mock::server_settings settings;
  settings.initial.latency = 20ms;
  mock::server partner{settings};
  partner.start();
  io_threads io{3};
  // 5 connections over 3 io threads: 2, 2 and 1, never more in all.
  client c(io.contexts(), parse_endpoint(partner.url()), quick(/*max_connections=*/5));
  threads_seen seen;
  seen.post_all(c, 60);
  ASSERT_TRUE(seen.waiter.wait_for(60));
  seen.expect_all_delivered();
  EXPECT_EQ(c.connections_opened(), 5U);
  EXPECT_EQ(c.idle_connections(), 5U);
  EXPECT_EQ(partner.snapshot().ok, 60U);
  // 60 posted at once fill the first share, then the next: every thread got some.
  EXPECT_EQ(seen.ids.size(), 3U);
  c.shutdown();
  io.stop();
}

TEST(HttpClient, KeepsALoadThatFitsTheFirstShareOnOneIoThread) {
  mock::server_settings settings;
  settings.initial.latency = 50ms;
  mock::server partner{settings};
  partner.start();
  io_threads io{2};
  // 8 connections over 2 io threads, 4 each; 4 at a time fit the first share. Spread evenly
  // they would wake both threads for two requests each.
  client c(io.contexts(), parse_endpoint(partner.url()), quick(/*max_connections=*/8));
  threads_seen seen;
  seen.post_all(c, 4);
  ASSERT_TRUE(seen.waiter.wait_for(4));
  EXPECT_EQ(c.connections_opened(), 4U);
  EXPECT_EQ(seen.ids.size(), 1U);
  // Five at once do not fit it: the fifth goes to the other thread.
  seen.post_all(c, 5);
  ASSERT_TRUE(seen.waiter.wait_for(9));
  seen.expect_all_delivered();
  EXPECT_EQ(c.connections_opened(), 5U);
  EXPECT_EQ(seen.ids.size(), 2U);
  c.shutdown();
  io.stop();
}

TEST(HttpClient, UsesNoMoreIoThreadsThanItHasConnections) {
  mock::server partner{mock::server_settings{}};
  partner.start();
  io_threads io{3};
  client c(io.contexts(), parse_endpoint(partner.url()), quick(/*max_connections=*/1));
  threads_seen seen;
  seen.post_all(c, 20);
  ASSERT_TRUE(seen.waiter.wait_for(20));
  seen.expect_all_delivered();
  EXPECT_EQ(c.connections_opened(), 1U);
  EXPECT_EQ(seen.ids.size(), 1U);
  c.shutdown();
  io.stop();
}

TEST(HttpClient, NeedsAnIoContext) {
  EXPECT_THROW(client(std::vector<boost::asio::io_context*>{},
                      parse_endpoint("http://127.0.0.1:1/hook"), quick()),
               std::invalid_argument);
}

TEST(HttpClient, TimesOutWhenTheServerNeverAnswers) {
  silent_listener silent;
  io_runner io;
  client c(io.context(), parse_endpoint(silent.url()), quick(1, 200ms));
  const auto start = std::chrono::steady_clock::now();
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::timeout);
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.error_message, HasSubstr("200 ms"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

TEST(HttpClient, TimeoutCountsTheWaitForAFreeConnection) {
  silent_listener silent;
  io_runner io;
  client c(io.context(), parse_endpoint(silent.url()), quick(1, 500ms));
  response_waiter waiter;
  const auto start = std::chrono::steady_clock::now();
  c.post(delivery("{}", "a"), waiter.callback());
  c.post(delivery("{}", "b"), waiter.callback());
  ASSERT_TRUE(waiter.wait_for(2, 5s));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  for (const auto& r : waiter.responses()) {
    EXPECT_EQ(r.error, transport_error::timeout) << r.error_message;
  }
  // Had the queue wait not counted, "b" would only start its 500 ms after "a" gave up.
  EXPECT_LT(elapsed, 900ms);
}

TEST(HttpClient, EveryQueuedRequestEndsAtItsOwnDeadlineUnderOneQueueTimer) {
  silent_listener silent;
  io_runner io;
  client c(io.context(), parse_endpoint(silent.url()), quick(1, 300ms));
  response_waiter waiter;
  for (const char* key : {"a", "b", "c", "d"}) {
    c.post(delivery("{}", key), waiter.callback());
  }
  ASSERT_TRUE(waiter.wait_for(4, 5s));
  std::size_t queued = 0;
  for (const auto& r : waiter.responses()) {
    EXPECT_EQ(r.error, transport_error::timeout) << r.error_message;
    queued += r.error_message.find("waiting for a free connection") != std::string::npos ? 1 : 0;
  }
  // "a" holds the one connection until its deadline; "b", "c" and "d" were posted microseconds
  // later, so their deadlines come just after it. When "a" times out its slot frees and the
  // next queued request may take it in that gap (then it times out waiting for the response),
  // so only the last of them surely ends in the queue; usually all three do.
  EXPECT_GE(queued, 1U) << "the queue timer ended none of the queued requests";
  EXPECT_LE(queued, 3U);
}

TEST(HttpClient, AQueueTimeoutNamesAllTheClientsConnectionsOverItsIoThreads) {
  silent_listener silent;
  io_threads io{2};
  // One connection on each thread; the other four requests queue, since both are busy.
  client c(io.contexts(), parse_endpoint(silent.url()), quick(2, 300ms));
  response_waiter waiter;
  for (const char* key : {"a", "b", "c", "d", "e", "f"}) {
    c.post(delivery("{}", key), waiter.callback());
  }
  ASSERT_TRUE(waiter.wait_for(6, 5s));
  std::size_t queued = 0;
  for (const auto& r : waiter.responses()) {
    EXPECT_EQ(r.error, transport_error::timeout) << r.error_message;
    if (r.error_message.find("waiting for a free connection") != std::string::npos) {
      ++queued;
      EXPECT_THAT(r.error_message, HasSubstr("(all 2 busy)"));
    }
  }
  EXPECT_GE(queued, 1U) << "no request ended in the queue";
  c.shutdown();
  io.stop();
}

TEST(HttpClient, RefusedConnectionIsAConnectError) {
  std::string url;
  {
    silent_listener closed_soon;  // take a free port, then give it back
    url = closed_soon.url();
  }
  io_runner io;
  client c(io.context(), parse_endpoint(url), quick());
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::connect);
  EXPECT_THAT(r.error_message, HasSubstr("cannot connect"));
  EXPECT_EQ(c.connections_opened(), 0U);
}

// One dead A record must not time out every new connection: each address has its own connect
// deadline, and the next address is dialled when one does not answer.
TEST(HttpClient, ADeadAddressGivesWayToTheNextAfterItsConnectTimeout) {
  mock::server partner{mock::server_settings{}};
  partner.start();
  blackhole dead{"127.0.0.2", partner.port()};
  auto s = resolving_to({"127.0.0.2", "127.0.0.1"}, quick(1, 5s));
  s.connect_timeout = 300ms;
  io_runner io;
  client c(io.context(), parse_endpoint(partner_url(partner.port())), s);
  const auto start = std::chrono::steady_clock::now();
  const auto r = post_and_wait(c, delivery("{}", "k"));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(r.status, 200) << r.error_message;
  EXPECT_EQ(partner.snapshot().ok, 1U);
  EXPECT_GE(took, 290ms) << "the dead address was dialled first";
  EXPECT_LT(took, 2s) << "well before the request's 5 s timeout";
}

TEST(HttpClient, EveryAddressDeadIsAConnectErrorOnceEachHadItsConnectTimeout) {
  blackhole first{"127.0.0.2", 0};
  blackhole second{"127.0.0.3", first.port()};
  auto s = resolving_to({"127.0.0.2", "127.0.0.3"}, quick(1, 5s));
  s.connect_timeout = 200ms;
  io_runner io;
  client c(io.context(), parse_endpoint(partner_url(first.port())), s);
  const auto start = std::chrono::steady_clock::now();
  const auto r = post_and_wait(c, delivery("{}", "k"));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.error, transport_error::connect) << r.error_message;
  EXPECT_THAT(r.error_message, HasSubstr("timed out"));
  EXPECT_GE(took, 390ms) << "both addresses had their 200 ms";
  EXPECT_LT(took, 2s);
}

// The request's timeout bounds the connects: a connect timeout longer than what is left of it
// ends the request at its deadline, as a timeout.
TEST(HttpClient, TheRequestsTimeoutBoundsItsConnects) {
  blackhole dead{"127.0.0.2", 0};
  auto s = resolving_to({"127.0.0.2"}, quick(1, 300ms));
  s.connect_timeout = 2s;
  io_runner io;
  client c(io.context(), parse_endpoint(partner_url(dead.port())), s);
  const auto start = std::chrono::steady_clock::now();
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::timeout) << r.error_message;
  EXPECT_THAT(r.error_message, HasSubstr("connecting"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1500ms);
}

TEST(HttpClient, BodyOverTheCapIsResponseTooLargeWithTheStatus) {
  scripted_server server(1, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(
        s, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + std::string(100000, 'x'));
  });
  io_runner io;
  auto settings = quick();
  settings.max_response_bytes = 1024;
  client c(io.context(), parse_endpoint(server.url()), settings);
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::response_too_large) << r.error_message;
  EXPECT_EQ(r.status, 200);
  EXPECT_LE(r.body.size(), 1024U);
}

TEST(HttpClient, ChunkedBodyOverTheCapIsCutToo) {
  scripted_server server(1, [](tcp::socket& s) {
    scripted_server::read_request(s);
    std::string chunks = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (int i = 0; i < 100; ++i) {
      chunks += "400\r\n" + std::string(1024, 'y') + "\r\n";
    }
    scripted_server::write_raw(s, chunks + "0\r\n\r\n");
  });
  io_runner io;
  auto settings = quick();
  settings.max_response_bytes = 4096;
  client c(io.context(), parse_endpoint(server.url()), settings);
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::response_too_large);
  EXPECT_EQ(r.status, 200);
}

TEST(HttpClient, HeadersOverTheCapAreResponseTooLarge) {
  scripted_server server(1, [](tcp::socket& s) {
    scripted_server::read_request(s);
    std::string head = "HTTP/1.1 200 OK\r\n";
    for (int i = 0; i < 64; ++i) {
      head += "X-Filler-" + std::to_string(i) + ": " + std::string(100, 'h') + "\r\n";
    }
    scripted_server::write_raw(s, head + "Content-Length: 0\r\n\r\n");
  });
  io_runner io;
  auto settings = quick();
  settings.max_header_bytes = 2048;
  client c(io.context(), parse_endpoint(server.url()), settings);
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::response_too_large) << r.error_message;
  EXPECT_THAT(r.error_message, HasSubstr("headers exceed 2048 bytes"));
}

TEST(HttpClient, AnEndlessChunkedBodyIsCutAtTheCap) {
  scripted_server server(1, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(s, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    const std::string chunk = "400\r\n" + std::string(1024, 'z') + "\r\n";
    boost::system::error_code ec;
    // Until the client hangs up: never a last chunk.
    while (!ec) {
      boost::asio::write(s, boost::asio::buffer(chunk), ec);
    }
  });
  io_runner io;
  auto settings = quick();
  settings.max_response_bytes = 8192;
  client c(io.context(), parse_endpoint(server.url()), settings);
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::response_too_large) << r.error_message;
  EXPECT_LE(r.body.size(), 8192U);
  EXPECT_TRUE(server.finished_within(5s)) << "the client closed the endless stream";
}

TEST(HttpClient, SlowDripHeadersEndAtTheRequestTimeout) {
  scripted_server server(1, [](tcp::socket& s) {
    scripted_server::read_request(s);
    const std::string head = "HTTP/1.1 200 OK\r\nX-Slow: " + std::string(200, 's');
    boost::system::error_code ec;
    for (std::size_t i = 0; i < head.size() && !ec; ++i) {
      boost::asio::write(s, boost::asio::buffer(&head[i], 1), ec);
      std::this_thread::sleep_for(20ms);  // the scripted peer's pace, not the test's wait
    }
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick(1, 300ms));
  const auto start = std::chrono::steady_clock::now();
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::timeout) << r.error_message;
  EXPECT_EQ(r.status, 0) << "headers never read whole: no answer";
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

// An answer whose headers were read whole keeps its status when its body then fails (here too
// slow; cut off: ConnectionDroppedMidBodyIsAResetWithTheStatus): the receiver decided
// (answer_judge judges by the status), and the connection is not reused.
TEST(HttpClient, ABodyTooSlowAfterItsHeadersEndsAtTheTimeoutWithTheStatusAndRetryAfter) {
  scripted_server server(1, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(
        s, "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\nContent-Length: 100\r\n\r\nbusy");
    std::this_thread::sleep_for(1s);  // the scripted peer's pace, not the test's wait
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick(1, 300ms));
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::timeout) << r.error_message;
  EXPECT_THAT(r.error_message, HasSubstr("reading the response body"));
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.retry_after, std::optional<std::string>{"7"});
}

// asio's resolver.cancel() does not stop a lookup getaddrinfo is running (a DNS server that
// does not answer): the request still ends at its deadline, and the lookup's late result is
// ignored instead of connecting with nothing left to watch the request.
TEST(HttpClient, ALookupStillRunningAtTheDeadlineEndsTheRequestThenAndConnectsNowhere) {
  scripted_server server(2, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(s, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  });
  io_runner io;
  client c(io.context(),
           parse_endpoint("http://" + std::string{testing::held_lookups::host} + ":" +
                          std::to_string(server.port()) + "/hook"),
           quick(1, 500ms));
  {
    const testing::held_lookups::holding held;
    const auto r = post_and_wait(c, delivery("{}", "k1"), 5s);
    EXPECT_EQ(r.error, transport_error::timeout) << r.error_message;
    EXPECT_THAT(r.error_message, HasSubstr("resolving the host"));
    EXPECT_TRUE(testing::held_lookups::wait_until_waiting(1, 1s)) << "the lookup still runs";
  }
  // asio runs an io_context's lookups one after another on one thread: this one's answer
  // comes after the held lookup's late result was handed back.
  const auto second = post_and_wait(c, delivery("{}", "k2"), 5s);
  EXPECT_EQ(second.status, 200) << second.error_message;
  EXPECT_EQ(server.accepted(), 1U) << "the late lookup of the first request connected";
}

// 1xx answers (100 Continue, 103 Early Hints) come before the answer; a server may send them
// unasked (RFC 9110 15.2). Taken for the answer, a 100 was a permanent failure and the real
// answer was left on the connection for the next request.
TEST(HttpClient, AnInterimAnswerIsNotTheAnswer) {
  scripted_server server(1, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(s,
                               "HTTP/1.1 100 Continue\r\n\r\n"
                               "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"
                               "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n");
    scripted_server::read_request(s);
    scripted_server::write_raw(s, "HTTP/1.1 100 Continue\r\n\r\n");
    scripted_server::write_raw(s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick(1));
  const auto first = post_and_wait(c, delivery("{}", "k1"));
  EXPECT_EQ(first.status, 202) << first.error_message;
  const auto second = post_and_wait(c, delivery("{}", "k2"));
  EXPECT_EQ(second.status, 200) << second.error_message;
  EXPECT_TRUE(second.reused_connection);
  EXPECT_EQ(c.connections_opened(), 1U);
}

// A 101 Switching Protocols (courier never asks for one) is the answer, and the connection then
// belongs to another protocol: the next request goes over a new one, not into its bytes.
TEST(HttpClient, AConnectionThatAnswered101CarriesNoOtherRequest) {
  scripted_server server(2, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(
        s, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
    scripted_server::write_raw(s, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");  // not HTTP
    boost::system::error_code ec;
    std::array<char, 256> rest{};
    s.read_some(boost::asio::buffer(rest), ec);  // until the client closes
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick(1));
  const auto first = post_and_wait(c, delivery("{}", "k1"));
  EXPECT_EQ(first.status, 101) << first.error_message;
  const auto second = post_and_wait(c, delivery("{}", "k2"));
  EXPECT_EQ(second.status, 101) << "read the other protocol's bytes as its answer";
  EXPECT_FALSE(second.reused_connection);
  EXPECT_EQ(c.connections_opened(), 2U);
}

// A server that sent a 1xx for a request has it: a close after that is not a stale kept-alive
// connection, and the request is not sent again on a fresh one.
TEST(HttpClient, AConnectionClosedAfterAnInterimAnswerIsNotRetriedAsStale) {
  scripted_server server(1, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(s, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    scripted_server::read_request(s);
    scripted_server::write_raw(s, "HTTP/1.1 100 Continue\r\n\r\n");
  });  // then the handler returns and closes the connection
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick(1, 2s));
  ASSERT_EQ(post_and_wait(c, delivery("{}", "k1")).status, 200);
  const auto second = post_and_wait(c, delivery("{}", "k2"));
  EXPECT_EQ(second.error, transport_error::reset) << second.error_message;
  EXPECT_TRUE(second.reused_connection);
  EXPECT_EQ(c.connections_opened(), 1U) << "sent again on a fresh connection";
}

TEST(HttpClient, AResponseNobodyAskedForIsNotTakenAsTheNextRequestsAnswer) {
  std::atomic<int> served{0};
  scripted_server server(2, [&served](tcp::socket& s) {
    scripted_server::read_request(s);
    if (served++ == 0) {
      // The answer, then at once an extra one before any second request.
      scripted_server::write_raw(s,
                                 "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
                                 "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n");
      scripted_server::read_request(s);  // until the client closes this connection
      return;
    }
    scripted_server::write_raw(s, "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n");
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick(1));
  ASSERT_EQ(post_and_wait(c, delivery("{}", "k1")).status, 200);
  // Written in one go, the extra response arrives with the first and is read ahead into the
  // connection's buffer, which is checked at every reuse; bytes that reach an idle connection
  // later are the next test's.
  const auto second = post_and_wait(c, delivery("{}", "k2"));
  EXPECT_EQ(second.status, 202) << second.error_message;
  EXPECT_FALSE(second.reused_connection);
  EXPECT_EQ(c.connections_opened(), 2U);
}

TEST(HttpClient, AResponseThatArrivesWhileTheConnectionIsIdleIsNotTheNextAnswer) {
  std::promise<void> answered;
  std::promise<void> extra_written;
  std::atomic<int> served{0};
  scripted_server server(2, [&](tcp::socket& s) {
    scripted_server::read_request(s);
    if (served++ == 0) {
      scripted_server::write_raw(s, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
      // Only once the client has its answer: these bytes reach an idle connection.
      answered.get_future().wait();
      scripted_server::write_raw(s, "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n");
      extra_written.set_value();
      scripted_server::read_request(s);  // until the client closes this connection
      return;
    }
    scripted_server::write_raw(s, "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n");
  });
  io_runner io;
  auto settings = quick(1);
  settings.idle_check_after = 0ms;  // the connection is reused at once: check it anyway
  client c(io.context(), parse_endpoint(server.url()), settings);
  ASSERT_EQ(post_and_wait(c, delivery("{}", "k1")).status, 200);
  answered.set_value();
  // On loopback the bytes are in the client's socket once the server's write returned.
  extra_written.get_future().wait();
  const auto second = post_and_wait(c, delivery("{}", "k2"));
  EXPECT_EQ(second.status, 202) << second.error_message;
  EXPECT_FALSE(second.reused_connection);
  EXPECT_EQ(c.connections_opened(), 2U);
}

TEST(HttpClient, ABodyThatFollowsItsHeaderLaterIsReadWhole) {
  scripted_server server(1, [](tcp::socket& s) {
    for (int i = 0; i < 2; ++i) {
      scripted_server::read_request(s);
      scripted_server::write_raw(s, "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello");
      std::this_thread::sleep_for(20ms);  // the scripted peer's pace, not the test's wait
      scripted_server::write_raw(s, " world");
    }
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick(1));
  for (const char* key : {"k1", "k2"}) {
    const auto r = post_and_wait(c, delivery("{}", key));
    EXPECT_EQ(r.status, 200) << r.error_message;
    EXPECT_EQ(r.body, "hello world");
  }
  EXPECT_EQ(c.connections_opened(), 1U);
}

TEST(HttpClient, AnAnswerWithItsBodyInOneSegmentLeavesWhatFollowsForTheIdleCheck) {
  std::atomic<int> served{0};
  scripted_server server(2, [&served](tcp::socket& s) {
    scripted_server::read_request(s);
    if (served++ == 0) {
      // The answer with its body, then an unasked one, in one write.
      scripted_server::write_raw(s,
                                 "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
                                 "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n");
      scripted_server::read_request(s);  // until the client closes this connection
      return;
    }
    scripted_server::write_raw(
        s, "HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n");
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick(1));
  const auto first = post_and_wait(c, delivery("{}", "k1"));
  ASSERT_EQ(first.status, 200) << first.error_message;
  EXPECT_EQ(first.body, "ok");
  const auto second = post_and_wait(c, delivery("{}", "k2"));
  EXPECT_EQ(second.status, 202) << second.error_message;
  EXPECT_EQ(second.body, "ok");
  EXPECT_FALSE(second.reused_connection);
}

TEST(HttpClient, RedirectIsReturnedAndNotFollowed) {
  scripted_server server(2, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(
        s, "HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n");
    scripted_server::read_request(s);  // a followed redirect would arrive here
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick());
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.status, 302);
  EXPECT_EQ(r.error, transport_error::none);
  c.shutdown();
  EXPECT_EQ(server.accepted(), 1U);
}

TEST(HttpClient, HandlesAServerThatClosesAfterEveryResponse) {
  scripted_server server(3, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(
        s, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok");
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick());
  for (int i = 0; i < 3; ++i) {
    const auto r = post_and_wait(c, delivery("{}", "k"));
    EXPECT_EQ(r.status, 200) << r.error_message;
    EXPECT_EQ(r.body, "ok");
    EXPECT_FALSE(r.reused_connection);
  }
  EXPECT_EQ(c.connections_opened(), 3U);
  EXPECT_EQ(c.idle_connections(), 0U);
}

TEST(HttpClient, RetriesOnceOnAFreshConnectionWhenAKeptAliveOneWasClosed) {
  // Promises keep-alive, then drops the connection anyway: the next request finds it dead.
  scripted_server server(2, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick());
  const auto first = post_and_wait(c, delivery("{}", "a"));
  ASSERT_EQ(first.status, 200) << first.error_message;
  const auto second = post_and_wait(c, delivery("{}", "b"));
  EXPECT_EQ(second.status, 200) << second.error_message;
  EXPECT_FALSE(second.reused_connection);
  EXPECT_EQ(c.connections_opened(), 2U);
}

TEST(HttpClient, SendsTheBodyByteForByteWithItsHeaders) {
  boost::beast::http::request<boost::beast::http::string_body> seen;
  scripted_server server(1, [&seen](tcp::socket& s) {
    seen = scripted_server::read_request(s);
    scripted_server::write_raw(s, "HTTP/1.1 204 No Content\r\n\r\n");
  });
  std::string body;
  for (int i = 0; i < 256; ++i) {
    body.push_back(static_cast<char>(i));  // NUL and every other byte value
  }
  request req = delivery(body, "orders:3:42");
  req.content_type = "application/octet-stream";
  req.headers.emplace_back("X-Signature", "abc123");
  io_runner io;
  client c(io.context(), parse_endpoint(server.url("/hook?v=1")), quick());
  const auto r = post_and_wait(c, req);
  ASSERT_EQ(r.status, 204) << r.error_message;
  ASSERT_TRUE(server.finished_within(5s));
  EXPECT_EQ(seen.method(), boost::beast::http::verb::post);
  EXPECT_EQ(seen.target(), "/hook?v=1");
  EXPECT_EQ(seen.body(), body);
  EXPECT_EQ(seen[boost::beast::http::field::content_length], "256");
  EXPECT_EQ(seen[boost::beast::http::field::content_type], "application/octet-stream");
  EXPECT_EQ(seen[boost::beast::http::field::user_agent], "courier/0.1.0");
  EXPECT_EQ(seen[boost::beast::http::field::host], "127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(seen["Idempotency-Key"], "orders:3:42");
  EXPECT_EQ(seen["X-Signature"], "abc123");
}

TEST(HttpClient, ReportsRetryAfterOfA429) {
  scripted_server server(1, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(
        s, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nContent-Length: 0\r\n\r\n");
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick());
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.status, 429);
  ASSERT_TRUE(r.retry_after.has_value());
  EXPECT_EQ(*r.retry_after, "7");
}

TEST(HttpClient, MalformedResponseIsAProtocolError) {
  scripted_server server(1, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(s, "HTTP/1.1 abc nonsense\r\n\r\n");
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick());
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::protocol) << r.error_message;
}

TEST(HttpClient, ConnectionDroppedMidBodyIsAResetWithTheStatus) {
  scripted_server server(1, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(s, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
  });  // and closes: 7 bytes of the body never come
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick());
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::reset) << r.error_message;
  EXPECT_EQ(r.status, 200) << "the headers were read whole: the receiver answered 200";
}

TEST(HttpClient, ConnectionDroppedMidHeadersIsAResetWithoutAStatus) {
  scripted_server server(1, [](tcp::socket& s) {
    scripted_server::read_request(s);
    scripted_server::write_raw(s, "HTTP/1.1 200 OK\r\nContent-Len");
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick());
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::reset) << r.error_message;
  EXPECT_EQ(r.status, 0);
}

TEST(HttpClient, AnAnswerSentBeforeTheRequestWasReadIsThatAnswer) {
  scripted_server server(1, [](tcp::socket& s) {
    // The server answers at once, before reading a byte (a proxy refusing early), then takes
    // the request off the wire and closes.
    scripted_server::write_raw(
        s,
        "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 4\r\n\r\n"
        "busy");
    scripted_server::read_request(s);
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick());
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::none) << r.error_message;
  EXPECT_EQ(r.status, 503) << "retriable, like any 503";
  EXPECT_EQ(r.body, "busy");
  EXPECT_EQ(c.connections_opened(), 1U);
}

TEST(HttpClient, AConnectionClosedAfterTheBodyWasSentIsAReset) {
  scripted_server server(1, [](tcp::socket& s) {
    // The whole request is read, then the connection closes without a byte of answer.
    scripted_server::read_request(s);
  });
  io_runner io;
  client c(io.context(), parse_endpoint(server.url()), quick());
  const auto r = post_and_wait(c, delivery(R"({"n":1})", "k"));
  EXPECT_EQ(r.error, transport_error::reset) << r.error_message;
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.error_message, HasSubstr("connection lost while reading the response"));
  EXPECT_FALSE(r.reused_connection) << "a fresh connection is not retried transparently";
  EXPECT_EQ(server.accepted(), 1U);
}

TEST(HttpClient, RefusesAnHttpsEndpointWhoseCaFileCannotBeRead) {
  io_runner io;
  auto s = quick();
  s.tls.ca_file = "/nonexistent/ca.pem";
  try {
    client c(io.context(), parse_endpoint("https://127.0.0.1:8443/hook"), s);
    FAIL() << "an unreadable CA file was accepted";
  } catch (const tls_setup_error& e) {
    EXPECT_EQ(e.field(), "ca_file");
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/ca.pem"));
  }
}

TEST(HttpClient, RefusesHeaderValuesThatCouldInjectHeaders) {
  io_runner io;
  client c(io.context(), parse_endpoint("http://127.0.0.1:1/hook"), quick());
  request r = delivery("{}", "k");
  r.headers.emplace_back("X-Evil", "a\r\nX-Injected: 1");
  EXPECT_THROW(c.post(r, [](response) {}), std::invalid_argument);
}

TEST(HttpClient, ShutdownEndsQueuedAndInFlightRequests) {
  silent_listener silent;
  io_runner io;
  client c(io.context(), parse_endpoint(silent.url()), quick(1, 30s));
  response_waiter waiter;
  c.post(delivery("{}", "a"), waiter.callback());
  c.post(delivery("{}", "b"), waiter.callback());
  c.shutdown();
  c.post(delivery("{}", "c"), waiter.callback());
  ASSERT_TRUE(waiter.wait_for(3, 5s));
  for (const auto& r : waiter.responses()) {
    EXPECT_EQ(r.error, transport_error::reset);
    EXPECT_EQ(r.error_message, "client shut down");
  }
}

TEST(HttpClient, Completes256ConcurrentRequestsInAboutOneServerLatency) {
  mock::server_settings settings;
  settings.initial.latency = 20ms;
  mock::server partner{settings};
  partner.start();
  io_runner io;
  client c(io.context(), parse_endpoint(partner.url()), quick(/*max_connections=*/256));
  constexpr std::size_t wave = 256;
  std::chrono::steady_clock::duration warm_wave{};
  for (int round = 0; round < 2; ++round) {
    response_waiter waiter;
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < wave; ++i) {
      c.post(delivery("{}", std::to_string(round) + ":" + std::to_string(i)), waiter.callback());
    }
    ASSERT_TRUE(waiter.wait_for(wave, 10s));
    warm_wave = std::chrono::steady_clock::now() - start;
    for (const auto& r : waiter.responses()) {
      ASSERT_EQ(r.status, 200) << r.error_message;
    }
  }
  // Serialised it would take 256 x 20 ms = 5 s; generous bound for loaded CI machines.
  EXPECT_LT(warm_wave, 1s)
      << std::chrono::duration_cast<std::chrono::milliseconds>(warm_wave).count();
  EXPECT_LE(c.connections_opened(), 256U);
  EXPECT_EQ(partner.snapshot().ok, 2 * wave);
}

}  // namespace
}  // namespace courier::http
