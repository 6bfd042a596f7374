#include "core/kafka/broker_probe.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

// The start-up's one-line answer to "is there a broker at kafka.brokers": a TCP connection to
// each bootstrap server, on loopback here.
namespace courier::kafka {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

// A socket listening on 127.0.0.1 at an ephemeral port; or, closed, a port nobody listens on.
class loopback_port {
 public:
  explicit loopback_port(bool listening) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    socklen_t len = sizeof a;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len), 0);
    port_ = ntohs(a.sin_port);
    if (listening) {
      EXPECT_EQ(::listen(fd_, 4), 0);
    } else {
      ::close(fd_);  // bound and released: nothing listens there now
      fd_ = -1;
    }
  }
  loopback_port(const loopback_port&) = delete;
  loopback_port& operator=(const loopback_port&) = delete;
  loopback_port(loopback_port&&) = delete;
  loopback_port& operator=(loopback_port&&) = delete;
  ~loopback_port() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  [[nodiscard]] std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

TEST(BrokerProbe, AServerThatAcceptsIsReachableAmongOnesThatDoNot) {
  const loopback_port open{true};
  const loopback_port closed{false};
  EXPECT_EQ(unreachable_brokers(open.address(), 2s), std::nullopt);
  EXPECT_EQ(unreachable_brokers(closed.address() + ", PLAINTEXT://" + open.address(), 2s),
            std::nullopt)
      << "one answering server is enough; librdkafka's protocol prefix is read past";
}

TEST(BrokerProbe, NoServerAnsweringNamesEachAndWhy) {
  const loopback_port closed{false};
  const auto why = unreachable_brokers(closed.address() + ",nonsense,[::1]:1", 2s);
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr(closed.address() + ": Connection refused"));
  EXPECT_THAT(*why, HasSubstr("nonsense: not host:port"));
  EXPECT_THAT(*why, HasSubstr("[::1]:1: ")) << "an IPv6 address in brackets";
  EXPECT_EQ(unreachable_brokers("", 1s), std::optional<std::string>{"no bootstrap server named"});

  const auto hint =
      unreachable_brokers_hint("127.0.0.1:9092", "127.0.0.1:9092: Connection refused");
  EXPECT_THAT(hint, HasSubstr("cannot reach the Kafka broker at 127.0.0.1:9092"));
  EXPECT_THAT(hint, HasSubstr("make kafka-up"));
  EXPECT_THAT(hint, HasSubstr("KAFKA_BROKERS"));
}

}  // namespace
}  // namespace courier::kafka
