#pragma once

// A raw loopback TCP client for tests that play a hostile or careless peer: it sends what it is
// told (a request that never ends), from the address it is told, and every wait has a
// deadline (POSIX sockets and poll(), so nothing blocks past it).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace courier::testing {

class raw_client {
 public:
  // Connects to 127.0.0.1:`port` from `source` (any 127.x.y.z: Linux routes all of 127/8 to the
  // loopback device, so one test can play several peers). `send_buffer`: SO_SNDBUF, 0 keeps the
  // system's.
  explicit raw_client(std::uint16_t port, const std::string& source = "127.0.0.1",
                      int send_buffer = 0)
      : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) {
    if (fd_ < 0) {
      throw std::runtime_error("socket() failed");
    }
    if (send_buffer > 0) {
      ::setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof send_buffer);
    }
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source.c_str(), &from.sin_addr);
    if (::bind(fd_, reinterpret_cast<const sockaddr*>(&from), sizeof from) != 0) {
      ::close(fd_);
      throw std::runtime_error("bind() to " + source + " failed");
    }
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0 &&
        errno != EINPROGRESS) {
      ::close(fd_);
      throw std::runtime_error("connect() failed");
    }
    if (!wait_for(POLLOUT, std::chrono::steady_clock::now() + std::chrono::seconds{5})) {
      ::close(fd_);
      throw std::runtime_error("connect() timed out");
    }
  }
  ~raw_client() { ::close(fd_); }
  raw_client(const raw_client&) = delete;
  raw_client& operator=(const raw_client&) = delete;
  raw_client(raw_client&&) = delete;
  raw_client& operator=(raw_client&&) = delete;

  // Sends all of `bytes` unless the peer stops taking them (closed, reset) or `within` passes;
  // returns how many went out.
  std::size_t send(const std::string& bytes,
                   std::chrono::milliseconds within = std::chrono::seconds{5}) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      const auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n > 0) {
        sent += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_for(POLLOUT, deadline)) {
        continue;
      }
      break;
    }
    return sent;
  }

  // Whether something (bytes or the peer's close) is there to read now.
  bool readable() { return wait_for(POLLIN, std::chrono::steady_clock::now()); }

  // Reads until `done(received)` holds, the peer closes or `within` passes. Returns what was
  // received by this call.
  template <class Done>
  std::string read_until(Done done, std::chrono::milliseconds within = std::chrono::seconds{5}) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    std::string received;
    std::array<char, 4096> chunk{};
    while (!done(received)) {
      const auto n = ::recv(fd_, chunk.data(), chunk.size(), 0);
      if (n > 0) {
        received.append(chunk.data(), static_cast<std::size_t>(n));
        continue;
      }
      if (n == 0) {
        closed_ = true;
        break;
      }
      if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_for(POLLIN, deadline)) {
        continue;
      }
      if (errno == ECONNRESET) {
        closed_ = true;
      }
      break;
    }
    return received;
  }

  // Reads until the peer closes or `within` passes; closed() tells which.
  std::string read_to_close(std::chrono::milliseconds within = std::chrono::seconds{5}) {
    return read_until([](const std::string&) { return false; }, within);
  }

  // The peer closed (EOF or reset) during a read.
  [[nodiscard]] bool closed() const { return closed_; }

 private:
  bool wait_for(short events, std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{fd_, events, 0};
      const int r = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
      if (r > 0) {
        return true;
      }
      if (r == 0 || errno != EINTR) {
        return false;
      }
    }
  }

  int fd_;
  bool closed_ = false;
};

}  // namespace courier::testing
