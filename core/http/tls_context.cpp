#include "core/http/tls_context.hpp"

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace courier::http {
namespace {

namespace ssl = boost::asio::ssl;

// OpenSSL's reasons for the latest failure, oldest first ("no start line; PEM lib", "key values
// mismatch": never file content); the error queue is left empty.
std::string openssl_reason(const boost::system::error_code& ec) {
  // asio took the oldest error off the queue into `ec`; the rest is still there.
  std::string reason = ec ? ec.message() : std::string{};
  while (const unsigned long code = ERR_get_error()) {
    const char* text = ERR_reason_error_string(code);
    if (text != nullptr && reason.find(text) == std::string::npos) {
      reason += (reason.empty() ? "" : "; ") + std::string{text};
    }
  }
  return reason.empty() ? "unknown OpenSSL error" : reason;
}

// No PEM file courier loads is larger: a CA bundle of every public root is about 200 KiB. A
// larger file is a mistake (or /dev/zero), refused before OpenSSL reads it.
constexpr std::uintmax_t largest_tls_file = std::uintmax_t{4} * 1024 * 1024;

// Checked before OpenSSL reads it: a regular file (a FIFO would hang start-up, a device never
// end), not larger than largest_tls_file, and readable (which names errno's reason instead of
// OpenSSL's "system lib").
void require_readable(const std::string& field, const std::string& what, const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw tls_setup_error(field, what + " '" + path + "' is not a regular file");
  }
  if (!ec && std::filesystem::is_regular_file(status)) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > largest_tls_file) {
      throw tls_setup_error(field, what + " '" + path + "' is larger than 4 MiB (" +
                                       std::to_string(size) + " bytes)");
    }
  }
  std::ifstream in{path, std::ios::binary};
  if (!in) {
    throw tls_setup_error(field, "cannot read " + what + " '" + path +
                                     "': " + std::generic_category().message(errno));
  }
}

}  // namespace

// Distinct by role: the config field and the problem, named at every call.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
tls_setup_error::tls_setup_error(std::string field, const std::string& problem)
    : std::invalid_argument(problem), field_(std::move(field)) {}

std::shared_ptr<ssl::context> make_tls_context(const tls_settings& s) {
  if (s.client_cert_file.empty() != s.client_key_file.empty()) {
    const bool cert = !s.client_cert_file.empty();
    throw tls_setup_error(
        cert ? "client_key_file" : "client_cert_file",
        cert ? "must be set with client_cert_file" : "must be set with client_key_file");
  }
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  if (SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION) != 1) {
    throw tls_setup_error("tls", "cannot require TLS 1.2: " + openssl_reason({}));
  }
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_compression);
  ctx->set_verify_mode(ssl::verify_peer);
  boost::system::error_code ec;
  if (s.ca_file.empty()) {
    ctx->set_default_verify_paths(ec);
    if (ec) {
      throw tls_setup_error("ca_file", "cannot load the system's CA store: " + openssl_reason(ec));
    }
  } else {
    require_readable("ca_file", "CA file", s.ca_file);
    ctx->load_verify_file(s.ca_file, ec);
    if (ec) {
      throw tls_setup_error("ca_file",
                            "cannot load CA file '" + s.ca_file + "': " + openssl_reason(ec));
    }
  }
  if (!s.client_cert_file.empty()) {
    require_readable("client_cert_file", "client certificate", s.client_cert_file);
    require_readable("client_key_file", "client key", s.client_key_file);
    ctx->use_certificate_chain_file(s.client_cert_file, ec);
    if (ec) {
      throw tls_setup_error(
          "client_cert_file",
          "cannot load client certificate '" + s.client_cert_file + "': " + openssl_reason(ec));
    }
    ctx->use_private_key_file(s.client_key_file, ssl::context::pem, ec);
    if (ec) {
      throw tls_setup_error("client_key_file", "cannot load client key '" + s.client_key_file +
                                                   "': " + openssl_reason(ec));
    }
    if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
      throw tls_setup_error("client_key_file", "client key '" + s.client_key_file +
                                                   "' does not match client certificate '" +
                                                   s.client_cert_file + "'");
    }
  }
  return ctx;
}

}  // namespace courier::http
