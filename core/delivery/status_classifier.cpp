#include "core/delivery/status_classifier.hpp"

namespace courier {

delivery_class classify_status(int status) {
  if (status >= 200 && status <= 299) {
    return delivery_class::delivered;
  }
  if (status == 408 || status == 409 || status == 429) {
    return delivery_class::retriable;
  }
  if (status >= 500 && status <= 599) {
    return delivery_class::retriable;
  }
  if (status >= 100 && status <= 499) {
    // 1xx as a final answer, 3xx (redirects are never followed), 410 and other 4xx: the
    // receiver would answer the same way next time.
    return delivery_class::permanent;
  }
  // Not an HTTP status at all: the response was malformed, which we treat like
  // transport_error::protocol.
  return classify_transport(transport_error::protocol);
}

delivery_class classify_transport(transport_error error) {
  // `none` means the attempt ended with neither a status nor an error: nothing was learned
  // about the receiver, so it is retried like any transport failure.
  switch (error) {
    case transport_error::none:
    case transport_error::connect:
    case transport_error::dns:
    case transport_error::reset:
    case transport_error::timeout:
    case transport_error::tls:
    case transport_error::protocol:
    case transport_error::response_too_large:
      return delivery_class::retriable;
    case transport_error::ssrf_blocked:
      // The configuration points at our own network: no attempt will ever go out.
      return delivery_class::permanent;
  }
  return delivery_class::retriable;
}

bool is_final_status(int status) { return status >= 200 && status <= 599; }

std::string error_class(int status, transport_error error) {
  if (error != transport_error::none && !is_final_status(status)) {
    return std::string{to_string(error)};
  }
  if (status == 401 || status == 403 || status == 410 || status == 429 || status == 503) {
    return "http_" + std::to_string(status);
  }
  if (status >= 100 && status <= 599) {
    // Per-class buckets keep the label set of metrics small.
    return "http_" + std::to_string(status / 100) + "xx";
  }
  return std::string{to_string(transport_error::protocol)};
}

std::string_view to_string(delivery_class c) {
  switch (c) {
    case delivery_class::delivered:
      return "delivered";
    case delivery_class::retriable:
      return "retriable";
    case delivery_class::permanent:
      return "permanent";
  }
  return "unknown";
}

}  // namespace courier
