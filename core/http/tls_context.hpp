#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include <boost/asio/ssl/context.hpp>

namespace courier::http {

// How a route talks TLS to its https:// endpoint. The peer is always verified; these only say
// against what and with which client identity.
struct tls_settings {
  std::string ca_file;           // PEM bundle of trusted CAs; empty: the system's store
  std::string client_cert_file;  // PEM certificate (chain) for mTLS; needs client_key_file
  std::string client_key_file;   // PEM private key of client_cert_file
};

// A TLS setting that cannot work. field() names it ("ca_file", "client_cert_file",
// "client_key_file"); what() says why, with the file name but nothing read from the file.
class tls_setup_error : public std::invalid_argument {
 public:
  tls_setup_error(std::string field, const std::string& problem);
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// The client context of one route, built once at start-up and shared by its connections: TLS
// 1.2 at least, peer verification on (the CA file or the system's default paths), the client
// certificate and key when both are set (their match is checked). Throws tls_setup_error.
std::shared_ptr<boost::asio::ssl::context> make_tls_context(const tls_settings& s);

}  // namespace courier::http
