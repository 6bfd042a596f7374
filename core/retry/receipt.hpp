#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/record_position.hpp"

namespace courier {

// One delivered record's receipt (routes[].receipts_topic, issue 34): written, keyed by the
// record's idempotency key, before the record's offset may be committed: read back, it proves the
// record was delivered, and when. A record delivered twice (after a crash) has two
// receipts under the same key.
struct receipt {
  std::string route;
  record_position origin;  // where the record first appeared (its tier copy names it too)
  int attempts = 0;        // every attempt, over every tier
  int status = 0;          // the 2xx that delivered it
  std::int64_t first_attempt_ms = 0;  // Unix ms
  std::int64_t delivered_ms = 0;
  // The partner's answer's headers routes[].receipts.response_headers names, as it sent them
  // (a request id), in the order configured; one it did not send is absent.
  std::vector<std::pair<std::string, std::string>> response_headers;
  std::string instance;  // the courier process that delivered it (host:pid)
  // The endpoint it was delivered to, on a route with several (routes[].endpoints); empty, and
  // absent from the value, on a route with one.
  std::string endpoint;

  friend bool operator==(const receipt& a, const receipt& b);
};

// The receipt's record value: one JSON object,
//   {"route":..,"origin":{"topic":..,"partition":..,"offset":..},"attempts":..,"status":..,
//    "first_attempt_ms":..,"delivered_ms":..,"response_headers":{name:value,..},"instance":..,
//    "endpoint":.. (only on a route with several)}
std::string encode_receipt(const receipt& r);

struct receipt_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Reads a receipt's value back; throws receipt_error naming what is missing or malformed.
receipt decode_receipt(std::string_view value);

}  // namespace courier
