#pragma once

// A hostile partner on loopback, at the socket level: it reads each request whole and answers
// `HTTP/1.1 200 OK` with a chunked body that never ends in one of two ways, taking turns by
// connection: a chunk line whose extension never ends (`1;aaaa…`), or after the last chunk
// (`0\r\n`) a trailer that never ends. Each connection is offered at most `offered_per_answer`
// bytes within `answer_deadline`, then closed; each runs on its own thread (so courier's
// connections are answered at once, all of them), and at most `max_connections` are served.
// What each connection saw is kept for the test: the request's Idempotency-Key, the bytes
// written before the client hung up, how long that took.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace courier::testing {

class endless_partner {
 public:
  static constexpr std::uint64_t offered_per_answer = std::uint64_t{8} << 20;  // 8 MiB
  static constexpr std::chrono::seconds answer_deadline{10};
  static constexpr std::size_t max_connections = 256;

  enum class endless { chunk_extension, trailer };

  struct answered {
    endless how = endless::chunk_extension;
    std::string idempotency_key;
    std::uint64_t offered = 0;  // bytes written after the request, the 200 head included
    bool hung_up = false;       // the client closed (a write failed) before all was offered
    std::chrono::milliseconds took{};
  };

  endless_partner() : listener_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (listener_ < 0) {
      throw std::runtime_error("socket() failed");
    }
    sockaddr_in at{};
    at.sin_family = AF_INET;
    ::inet_pton(AF_INET, "127.0.0.1", &at.sin_addr);
    socklen_t size = sizeof at;
    if (::bind(listener_, reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0 ||
        ::listen(listener_, 128) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&at), &size) != 0) {
      ::close(listener_);
      throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    port_ = ntohs(at.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  ~endless_partner() { stop(); }
  endless_partner(const endless_partner&) = delete;
  endless_partner& operator=(const endless_partner&) = delete;
  endless_partner(endless_partner&&) = delete;
  endless_partner& operator=(endless_partner&&) = delete;

  [[nodiscard]] std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/hook";
  }

  // Stops accepting and waits for every connection's answer to end (each within
  // answer_deadline). Idempotent.
  void stop() {
    stopping_ = true;
    if (acceptor_.joinable()) {
      acceptor_.join();
    }
    std::vector<std::thread> workers;
    {
      const std::lock_guard<std::mutex> lock{mutex_};
      workers.swap(workers_);
    }
    for (auto& w : workers) {
      w.join();
    }
    if (listener_ >= 0) {
      ::close(listener_);
      listener_ = -1;
    }
  }

  // The connections whose answers ended so far.
  [[nodiscard]] std::vector<answered> answers() const {
    const std::lock_guard<std::mutex> lock{mutex_};
    return answers_;
  }

 private:
  void accept_loop() {
    std::size_t accepted = 0;
    while (!stopping_ && accepted < max_connections) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) {
        continue;
      }
      const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        continue;
      }
      const auto how = accepted % 2 == 0 ? endless::chunk_extension : endless::trailer;
      ++accepted;
      const std::lock_guard<std::mutex> lock{mutex_};
      workers_.emplace_back([this, fd, how] { answer(fd, how); });
    }
  }

  // The request's head up to its blank line and Content-Length bytes of body, within 5 s;
  // empty when it did not arrive whole.
  static std::string read_request(int fd) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{5};
    std::string request;
    std::array<char, 4096> chunk{};
    while (std::chrono::steady_clock::now() < deadline && request.size() < (std::size_t{1} << 20)) {
      const auto head_end = request.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        const auto length = header_value(request.substr(0, head_end), "content-length");
        const std::size_t body = std::strtoul(length.c_str(), nullptr, 10);
        if (request.size() >= head_end + 4 + body) {
          return request;
        }
      }
      const auto n = ::recv(fd, chunk.data(), chunk.size(), 0);
      if (n > 0) {
        request.append(chunk.data(), static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        break;
      }
    }
    return {};
  }

  // The value of header `name` (lower case) in `head`, without surrounding blanks.
  static std::string header_value(const std::string& head, const std::string& name) {
    std::string lower = head;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto at = lower.find("\r\n" + name + ":");
    if (at == std::string::npos) {
      return {};
    }
    const auto from = head.find_first_not_of(" \t", at + name.size() + 3);
    const auto to = head.find("\r\n", from);
    return from == std::string::npos ? std::string{} : head.substr(from, to - from);
  }

  void answer(int fd, endless how) {
    // A small send buffer, and sends that wait at most 200 ms: the bytes written are about what
    // the client took, and the deadline is checked often.
    const int send_buffer = 64 * 1024;
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof send_buffer);
    const timeval wait{0, 200 * 1000};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait);
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    const std::string request = read_request(fd);
    if (request.empty()) {
      ::close(fd);
      return;
    }
    answered a;
    a.how = how;
    a.idempotency_key =
        header_value(request.substr(0, request.find("\r\n\r\n")), "idempotency-key");
    const std::string chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    const std::string head =
        how == endless::chunk_extension ? chunked + "1;" : chunked + "0\r\nX-Trailer: ";
    const std::string piece(64 * 1024, how == endless::chunk_extension ? 'a' : 't');
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + answer_deadline;
    const std::string* next = &head;
    std::size_t at = 0;
    while (!stopping_ && a.offered < offered_per_answer &&
           std::chrono::steady_clock::now() < deadline) {
      const auto n = ::send(fd, next->data() + at, next->size() - at, MSG_NOSIGNAL);
      if (n > 0) {
        a.offered += static_cast<std::uint64_t>(n);
        at += static_cast<std::size_t>(n);
        if (at == next->size()) {
          next = &piece;
          at = 0;
        }
      } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        a.hung_up = true;  // EPIPE or ECONNRESET: the client closed
        break;
      }
    }
    a.took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    ::close(fd);
    const std::lock_guard<std::mutex> lock{mutex_};
    answers_.push_back(std::move(a));
  }

  int listener_;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<std::thread> workers_;
  std::vector<answered> answers_;
};

}  // namespace courier::testing
