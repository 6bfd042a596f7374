#include "mock_webhook/server.hpp"

#include <stdexcept>
#include <utility>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <openssl/ssl.h>

#include "mock_webhook/listener.hpp"

namespace courier::mock {
namespace {

namespace ssl = boost::asio::ssl;

std::shared_ptr<ssl::context> server_context(const server_settings& s) {
  if (s.tls_cert_file.empty() && s.tls_key_file.empty()) {
    return nullptr;
  }
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  ctx->use_certificate_chain_file(s.tls_cert_file);
  ctx->use_private_key_file(s.tls_key_file, ssl::context::pem);
  if (!s.tls_client_ca_file.empty()) {
    ctx->load_verify_file(s.tls_client_ca_file);
    ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  }
  return ctx;
}

}  // namespace

server::server(server_settings settings)
    : settings_(std::move(settings)),
      state_(std::make_shared<partner_state>(settings_.hmac_secret, settings_.initial,
                                             settings_.seed, settings_.standard_webhooks)),
      routes_(std::make_shared<router>(state_)),
      tls_(server_context(settings_)),
      port_(settings_.port) {}

server::~server() { stop(); }

void server::start() {
  if (runner_) {
    throw std::logic_error("mock webhook server already started");
  }
  const auto address = boost::asio::ip::make_address(settings_.address);
  auto runner = std::make_unique<courier::http::io_runner>(settings_.threads);
  auto accepting =
      std::make_shared<listener>(runner->context(), boost::asio::ip::tcp::endpoint(address, port_),
                                 routes_, settings_.hang_for, tls_);
  port_ = accepting->port();
  accepting->run();
  runner_ = std::move(runner);
}

void server::stop() { runner_.reset(); }

std::string server::url() const {
  const bool v6 = settings_.address.find(':') != std::string::npos;
  const std::string host = v6 ? "[" + settings_.address + "]" : settings_.address;
  return std::string{tls_ ? "https://" : "http://"} + host + ":" + std::to_string(port_) +
         "/deliver";
}

}  // namespace courier::mock
