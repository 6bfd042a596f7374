#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include <boost/asio/ssl/context.hpp>

#include "core/http/tls_settings.hpp"

namespace courier::http {

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
