#include "core/http/client.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "core/http/connection_pool.hpp"
#include "core/http/exchange.hpp"
#include "core/http/request_head.hpp"

namespace courier::http {

namespace {

bool has_line_break_or_nul(std::string_view s) {
  // A plain loop: find_first_of over a set calls memchr once per character of `s`, and this
  // runs for every header of every request.
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return c == '\r' || c == '\n' || c == '\0'; });
}

void check_header(const std::string& name, const std::string& value) {
  const auto separator = [](char c) { return c == ':' || c == ' ' || c == '\t'; };
  if (name.empty() || has_line_break_or_nul(name) ||
      std::any_of(name.begin(), name.end(), separator)) {
    throw std::invalid_argument("invalid HTTP header name '" + name + "'");
  }
  if (has_line_break_or_nul(value)) {
    throw std::invalid_argument("value of HTTP header '" + name + "' contains CR, LF or NUL");
  }
}

}  // namespace

client::client(boost::asio::io_context& ioc, const endpoint& ep, const client_settings& s)
    : client(std::vector<boost::asio::io_context*>{&ioc}, ep, s) {}

client::client(const std::vector<boost::asio::io_context*>& contexts, const endpoint& ep,
               const client_settings& s) {
  if (contexts.empty()) {
    throw std::invalid_argument("client needs at least one io_context");
  }
  if (ep.scheme != "http" && ep.scheme != "https") {
    throw std::invalid_argument("unsupported scheme '" + ep.scheme + "'");
  }
  if (s.max_connections == 0) {
    throw std::invalid_argument("client_settings.max_connections must be at least 1");
  }
  if (s.max_header_bytes == 0) {
    throw std::invalid_argument("client_settings.max_header_bytes must be at least 1");
  }
  if (s.timeout.count() <= 0) {
    throw std::invalid_argument("client_settings.timeout must be positive");
  }
  check_header("User-Agent", s.user_agent);
  std::shared_ptr<boost::asio::ssl::context> tls;
  if (ep.scheme == "https") {
    tls = make_tls_context(s.tls);
  }
  const std::size_t shards = std::min(contexts.size(), s.max_connections);
  pools_.reserve(shards);
  for (std::size_t i = 0; i < shards; ++i) {
    client_settings share = s;
    share.max_connections = s.max_connections / shards + (i < s.max_connections % shards ? 1 : 0);
    pools_.push_back(std::make_shared<connection_pool>(*contexts[i], ep, std::move(share), tls,
                                                       s.max_connections));
  }
}

client::~client() { shutdown(); }

void client::post(request r, std::function<void(response)> on_done) {
  if (!on_done) {
    throw std::invalid_argument("client::post needs an on_done callback");
  }
  check_header("Content-Type", r.content_type);
  for (const auto& [name, value] : r.headers) {
    check_header(name, value);
  }
  connection_pool& pool = pick_pool();
  auto msg = std::make_shared<wire_request>(
      // A braced list is evaluated in order: the head (which reads the body's size) first.
      wire_request{request_head(pool.target(), pool.settings().user_agent, r), std::move(r.body)});
  const auto deadline = std::chrono::steady_clock::now() + pool.settings().timeout;
  pool.submit(exchange{std::move(msg), std::move(on_done), deadline});
}

connection_pool& client::pick_pool() const {
  // A handful of pools (one per io thread), so a scan. Each exchange outstanding holds a
  // connection or waits for one, so fewer than the pool's connections means one is free.
  connection_pool* least = nullptr;
  for (const auto& p : pools_) {
    const std::size_t load = p->outstanding();
    if (load < p->settings().max_connections) {
      return *p;
    }
    if (least == nullptr || load < least->outstanding()) {
      least = p.get();
    }
  }
  return *least;
}

std::size_t client::connections_opened() const {
  std::size_t n = 0;
  for (const auto& p : pools_) {
    n += p->connections_opened();
  }
  return n;
}

std::size_t client::idle_connections() const {
  std::size_t n = 0;
  for (const auto& p : pools_) {
    n += p->idle_connections();
  }
  return n;
}

void client::shutdown() {
  for (const auto& p : pools_) {
    p->shutdown();
  }
}

}  // namespace courier::http
