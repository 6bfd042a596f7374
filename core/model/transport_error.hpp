#pragma once

#include <string_view>

namespace courier {

// Why an attempt produced no HTTP status at all.
enum class transport_error {
  none,
  connect,             // refused, unreachable
  dns,                 // name did not resolve
  reset,               // connection reset or closed mid-exchange
  timeout,             // connect+write+read exceeded the request timeout
  tls,                 // handshake or certificate failure
  protocol,            // malformed response
  response_too_large,  // body exceeded the cap
  ssrf_blocked         // every address of the host is private: refused before connecting
};

std::string_view to_string(transport_error e);

}  // namespace courier
