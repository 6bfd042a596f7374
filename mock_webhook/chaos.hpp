#pragma once

#include <chrono>

#include <nlohmann/json_fwd.hpp>

namespace courier::mock {

// How badly the partner behaves. The rates are shares of /deliver requests (after the key
// and signature checks): 503 first, then hangs, so together they are at most 1.
struct chaos {
  double fail_rate_503 = 0;
  double fail_rate_timeout = 0;
  std::chrono::milliseconds latency{0};  // before every 200
  // Share of records rejected with 400, chosen by a hash of the Idempotency-Key: the same
  // records every time, like a payload the partner dislikes.
  double fail_rate_400 = 0;
  // The partner disabled the endpoint: 410 Gone to every request that passes the key and
  // signature checks (Standard Webhooks: the sender should stop).
  bool gone = false;
};

// Throws std::invalid_argument naming the field that is out of range.
void validate(const chaos& c);

// Reads {"fail_rate_503":0.5,"fail_rate_timeout":0,"fail_rate_400":0,"latency_ms":0,"gone":false};
// a missing field is 0 (false), so the document always describes the whole behaviour. Throws
// std::invalid_argument naming the bad or unknown field.
chaos chaos_from_json(const nlohmann::json& doc);

nlohmann::json to_json(const chaos& c);

}  // namespace courier::mock
