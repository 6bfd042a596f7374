#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/ssl/context.hpp>

#include "core/http/io_runner.hpp"
#include "mock_webhook/chaos.hpp"
#include "mock_webhook/partner_state.hpp"
#include "mock_webhook/router.hpp"
#include "mock_webhook/stats.hpp"

namespace courier::mock {

struct server_settings {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;                  // 0 = ephemeral
  std::optional<std::string> hmac_secret;  // set: X-Signature is required and checked
  chaos initial;
  std::chrono::milliseconds hang_for{30000};  // how long a "timeout" answer holds the request
  std::uint64_t seed = 1;
  unsigned threads = 1;
  // Non-empty: webhook-id, webhook-timestamp and webhook-signature are required and checked
  // against these whsec_ secrets (any one verifying is enough: a rotation).
  standard_webhooks_check standard_webhooks{};
  // HTTPS: served with this certificate (chain) and key, PEM files; both empty: plain HTTP.
  std::string tls_cert_file{};
  std::string tls_key_file{};
  // With TLS: require a client certificate issued by this CA (mTLS); empty: none asked for.
  std::string tls_client_ca_file{};
};

// A real Beast HTTP server playing the partner (DESIGN.md section 3). Start/stop from one
// controlling thread; the query and chaos calls are thread-safe. Counters and arrivals
// survive stop(), and start() after stop() listens on the same port again, so a test can
// take the partner away and bring it back.
class server {
 public:
  // Throws std::invalid_argument on bad chaos or a malformed whsec_ secret, std::runtime_error
  // on TLS files that do not load.
  explicit server(server_settings settings);
  ~server();

  server(const server&) = delete;
  server& operator=(const server&) = delete;

  // Binds and starts accepting; throws boost::system::system_error if the port is taken.
  void start();
  // Closes the listener and every connection (held ones included) and joins the threads.
  void stop();

  std::uint16_t port() const { return port_; }
  std::string url() const;  // http(s)://<address>:<port>/deliver

  stats snapshot() const { return state_->snapshot(); }
  void set_chaos(chaos c) { state_->set_chaos(c); }
  void set_secret(std::optional<std::string> hmac_secret) {
    state_->set_secret(std::move(hmac_secret));
  }
  void set_standard_webhooks_secrets(const std::vector<std::string>& secrets) {
    state_->set_standard_webhooks_secrets(secrets);
  }
  chaos current_chaos() const { return state_->current_chaos(); }
  // Every /deliver gets 503 until then.
  void set_outage_until(std::chrono::steady_clock::time_point until) {
    state_->set_outage_until(until);
  }
  std::vector<arrival> arrivals() const { return state_->arrivals(); }
  std::map<std::string, std::uint64_t> attempts_by_key() const { return state_->attempts_by_key(); }
  std::map<std::string, std::vector<std::chrono::system_clock::time_point>> attempt_times() const {
    return state_->attempt_times();
  }
  void set_key_rule(const std::string& key, key_rule rule) { state_->set_key_rule(key, rule); }

 private:
  server_settings settings_;
  std::shared_ptr<partner_state> state_;
  std::shared_ptr<router> routes_;
  std::shared_ptr<boost::asio::ssl::context> tls_;  // null: plain HTTP
  // Destroying the runner destroys the io_context and with it every session and the
  // listener, which is what closes their sockets on stop().
  std::unique_ptr<courier::http::io_runner> runner_;
  std::uint16_t port_ = 0;
};

}  // namespace courier::mock
