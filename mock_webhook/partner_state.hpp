#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/delivery/hmac_signer.hpp"
#include "core/delivery/standard_webhooks_signer.hpp"
#include "mock_webhook/chaos.hpp"
#include "mock_webhook/stats.hpp"

namespace courier::mock {

// What the partner does with one POST /deliver.
enum class delivery_outcome {
  accepted,      // 200, first time for this key
  duplicate,     // 200 again, same body as the first time
  missing_key,   // 400
  unauthorized,  // 401
  unavailable,   // 503 (outage window, chaos or a key rule)
  rejected,      // 400 (fail_rate_400 or a key rule)
  gone,          // 410 (chaos.gone)
  hang           // never answer; close after hang_for
};

// A scripted answer for one key: `status` (400 or 503) the next `times` attempts, or every
// attempt when times is negative.
struct key_rule {
  int status = 503;
  std::int64_t times = -1;
};

// The Standard Webhooks headers of one request, as received.
struct webhook_headers {
  std::optional<std::string_view> id;
  std::optional<std::string_view> timestamp;
  std::optional<std::string_view> signature;
};

// What the partner checks besides X-Signature: Standard Webhooks signatures against every one
// of `secrets` (whsec_; empty: not checked), with timestamps at most `tolerance` from its clock.
struct standard_webhooks_check {
  std::vector<std::string> secrets;
  std::chrono::seconds tolerance = standard_webhooks_signer::default_tolerance;
};

struct delivery_decision {
  delivery_outcome outcome = delivery_outcome::accepted;
  std::chrono::milliseconds latency{0};  // before a 200
  std::string reason;                    // for the error body
};

// The partner's memory and rules, apart from the network: de-duplication, signature check,
// chaos and counters. Thread-safe; the clock comes in as a parameter, the random source is
// seeded so a run can be repeated.
class partner_state {
 public:
  // Throws std::invalid_argument for a malformed whsec_ secret in `sw`.
  partner_state(std::optional<std::string> hmac_secret, chaos initial, std::uint64_t seed,
                const standard_webhooks_check& sw = {});

  // Order: key check, X-Signature, Standard Webhooks signature, key rules, fail_rate_400,
  // outage, chaos, then de-duplication; a key counts as delivered when the 200 is decided, so
  // a concurrent repeat is already a duplicate. `wall_now` is the clock webhook-timestamp is
  // checked against.
  delivery_decision decide(std::optional<std::string_view> idempotency_key, std::string_view body,
                           std::optional<std::string_view> signature, const webhook_headers& sw,
                           std::chrono::steady_clock::time_point now,
                           std::chrono::system_clock::time_point wall_now);

  stats snapshot() const;
  void set_chaos(chaos c);  // validated; throws std::invalid_argument
  // The partner rotates its secret (nullopt: signatures are no longer checked).
  void set_secret(std::optional<std::string> hmac_secret);
  // The partner's Standard Webhooks secrets (empty: no longer checked); throws
  // std::invalid_argument for a malformed one.
  void set_standard_webhooks_secrets(const std::vector<std::string>& secrets);
  chaos current_chaos() const;
  void set_outage_until(std::chrono::steady_clock::time_point until);
  // Throws std::invalid_argument for a status other than 400 or 503.
  void set_key_rule(const std::string& key, key_rule rule);
  // When each key first got a 200 and every attempt's arrival, for due-time checks.
  std::map<std::string, std::vector<std::chrono::system_clock::time_point>> attempt_times() const;
  std::vector<arrival> arrivals() const;
  std::map<std::string, std::uint64_t> attempts_by_key() const;

 private:
  mutable std::mutex mutex_;
  std::optional<courier::hmac_signer> signer_;
  std::optional<courier::standard_webhooks_signer> sw_verifier_;
  std::chrono::seconds sw_tolerance_;
  chaos chaos_;
  std::chrono::steady_clock::time_point outage_until_{};
  std::mt19937_64 random_;
  stats stats_;
  std::unordered_set<std::string> delivered_;
  std::map<std::string, std::uint64_t> attempts_;
  std::map<std::string, std::vector<std::chrono::system_clock::time_point>> attempt_times_;
  std::map<std::string, key_rule> key_rules_;
  std::vector<arrival> arrivals_;
};

}  // namespace courier::mock
