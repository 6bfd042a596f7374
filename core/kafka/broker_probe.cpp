#include "core/kafka/broker_probe.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "core/files/posix_fd.hpp"

namespace courier::kafka {
namespace {

struct addrinfo_deleter {
  void operator()(addrinfo* a) const { freeaddrinfo(a); }
};

// "host:port" or "[v6]:port": the host and the port; none when there is no port.
std::optional<std::pair<std::string, std::string>> split_address(std::string_view a) {
  if (!a.empty() && a.front() == '[') {
    const auto close = a.find(']');
    if (close == std::string_view::npos || close + 1 >= a.size() || a[close + 1] != ':') {
      return std::nullopt;
    }
    return std::make_pair(std::string{a.substr(1, close - 1)}, std::string{a.substr(close + 2)});
  }
  const auto colon = a.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == a.size()) {
    return std::nullopt;
  }
  return std::make_pair(std::string{a.substr(0, colon)}, std::string{a.substr(colon + 1)});
}

// Connects to one resolved address within `timeout`: none, or the error.
std::optional<std::string> connect_one(const addrinfo& ai, std::chrono::milliseconds timeout) {
  const files::posix_fd s{
      ::socket(ai.ai_family, ai.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai.ai_protocol)};
  if (s.get() < 0) {
    return std::string{std::strerror(errno)};
  }
  if (::connect(s.get(), ai.ai_addr, ai.ai_addrlen) == 0) {
    return std::nullopt;
  }
  if (errno != EINPROGRESS) {
    return std::string{std::strerror(errno)};
  }
  pollfd p{s.get(), POLLOUT, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
  if (ready == 0) {
    return "no answer within " + std::to_string(timeout.count()) + " ms";
  }
  int error = 0;
  socklen_t len = sizeof error;
  if (ready < 0 || ::getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &error, &len) != 0) {
    return std::string{std::strerror(errno)};
  }
  if (error != 0) {
    return std::string{std::strerror(error)};
  }
  return std::nullopt;
}

// Whether the one server accepts a connection: none, or why not.
std::optional<std::string> probe(std::string_view server, std::chrono::milliseconds timeout) {
  const auto parts = split_address(server);
  if (!parts) {
    return "not host:port";
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(parts->first.c_str(), parts->second.c_str(), &hints, &found);
      rc != 0) {
    return std::string{gai_strerror(rc)};
  }
  const std::unique_ptr<addrinfo, addrinfo_deleter> list{found};
  std::optional<std::string> last;
  for (const addrinfo* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
    last = connect_one(*ai, timeout);
    if (!last) {
      return std::nullopt;
    }
  }
  return last.value_or("no address");
}

}  // namespace

std::optional<std::string> unreachable_brokers(std::string_view bootstrap,
                                               std::chrono::milliseconds timeout) {
  std::string problems;
  std::size_t from = 0;
  while (from <= bootstrap.size()) {
    auto comma = bootstrap.find(',', from);
    if (comma == std::string_view::npos) {
      comma = bootstrap.size();
    }
    auto server = bootstrap.substr(from, comma - from);
    while (!server.empty() && server.front() == ' ') {
      server.remove_prefix(1);
    }
    while (!server.empty() && server.back() == ' ') {
      server.remove_suffix(1);
    }
    // librdkafka takes an optional "PROTOCOL://" in front of an address.
    if (const auto scheme = server.find("://"); scheme != std::string_view::npos) {
      server.remove_prefix(scheme + 3);
    }
    if (!server.empty()) {
      const auto why = probe(server, timeout);
      if (!why) {
        return std::nullopt;
      }
      problems += (problems.empty() ? "" : "; ") + std::string{server} + ": " + *why;
    }
    from = comma + 1;
  }
  return problems.empty() ? std::optional<std::string>{"no bootstrap server named"} : problems;
}

std::string unreachable_brokers_hint(std::string_view bootstrap, const std::string& problem) {
  return "cannot reach the Kafka broker at " + std::string{bootstrap} + " (" + problem +
         "): start one (`make kafka-up` serves 127.0.0.1:19092) or point kafka.brokers (or "
         "KAFKA_BROKERS) at yours";
}

}  // namespace courier::kafka
