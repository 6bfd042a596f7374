#pragma once

#include <string>

namespace courier::http {

// How a route talks TLS to its https:// endpoint. The peer is always verified; these only say
// against what and with which client identity.
struct tls_settings {
  std::string ca_file;           // PEM bundle of trusted CAs; empty: the system's store
  std::string client_cert_file;  // PEM certificate (chain) for mTLS; needs client_key_file
  std::string client_key_file;   // PEM private key of client_cert_file
};

}  // namespace courier::http
