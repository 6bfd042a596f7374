#include "core/model/transport_error.hpp"

namespace courier {

std::string_view to_string(transport_error e) {
  switch (e) {
    case transport_error::none:
      return "none";
    case transport_error::connect:
      return "connect";
    case transport_error::dns:
      return "dns";
    case transport_error::reset:
      return "reset";
    case transport_error::timeout:
      return "timeout";
    case transport_error::tls:
      return "tls";
    case transport_error::protocol:
      return "protocol";
    case transport_error::response_too_large:
      return "response_too_large";
    case transport_error::ssrf_blocked:
      return "ssrf_blocked";
  }
  return "unknown";
}

}  // namespace courier
