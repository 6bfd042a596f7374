#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace courier::mock {

// Counters of POST /deliver. Every request counts in `total`; each one that passes the key
// check ends in exactly one of ok, duplicates, fail_503, fail_timeout, fail_401, fail_400,
// fail_410.
struct stats {
  std::uint64_t total = 0;
  std::uint64_t ok = 0;            // first 200 for a key
  std::uint64_t fail_503 = 0;      // outage or chaos
  std::uint64_t fail_timeout = 0;  // held open without an answer
  std::uint64_t fail_401 = 0;      // missing or wrong X-Signature
  std::uint64_t fail_400 = 0;      // rejected: fail_rate_400 or a key rule
  std::uint64_t fail_410 = 0;      // gone: chaos.gone
  std::uint64_t unique_keys = 0;   // distinct Idempotency-Keys seen, whatever the answer
  std::uint64_t duplicates = 0;    // 200 again for a key already answered 200
};

// The first successful receipt of a key.
struct arrival {
  std::string idempotency_key;
  std::chrono::system_clock::time_point at;
};

// {"total":..,"ok":..,"fail_503":..,"fail_timeout":..,"fail_401":..,"unique_keys":..,
//  "duplicates":..}
nlohmann::json to_json(const stats& s);

}  // namespace courier::mock
