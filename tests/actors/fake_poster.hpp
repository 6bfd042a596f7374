#pragma once

// An HTTP client for the delivery pool on CAF's deterministic coordinator: it keeps what the
// pool posts, and the test answers each request when it chooses.

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/http/client.hpp"
#include "core/http/poster.hpp"

namespace courier::testing {

// on_done runs on the test's thread, inside answer(): the pool's answer inbox, off an io
// thread, wakes the pool at once (no gather timer), and the test's next run() delivers it.
class fake_poster final : public http::poster {
 public:
  struct exchange {
    http::request request;
    std::function<void(http::response)> on_done;
    bool answered = false;

    [[nodiscard]] std::string header(const std::string& name) const {
      for (const auto& [n, v] : request.headers) {
        if (n == name) {
          return v;
        }
      }
      return {};
    }
  };

  void post(http::request r, std::function<void(http::response)> on_done) override {
    posted.push_back(exchange{std::move(r), std::move(on_done)});
  }

  // Answers the oldest unanswered request whose Idempotency-Key is `key`.
  void answer(const std::string& key, int status,
              std::optional<std::string> retry_after = std::nullopt) {
    for (auto& e : posted) {
      if (!e.answered && e.header("Idempotency-Key") == key) {
        e.answered = true;
        http::response r;
        r.status = status;
        r.retry_after = std::move(retry_after);
        e.on_done(std::move(r));
        return;
      }
    }
    throw std::logic_error("no unanswered request with Idempotency-Key " + key);
  }

  // The Idempotency-Keys of the requests posted and not answered yet, oldest first.
  [[nodiscard]] std::vector<std::string> unanswered() const {
    std::vector<std::string> keys;
    for (const auto& e : posted) {
      if (!e.answered) {
        keys.push_back(e.header("Idempotency-Key"));
      }
    }
    return keys;
  }

  std::vector<exchange> posted;  // every request, in the order posted
};

}  // namespace courier::testing
