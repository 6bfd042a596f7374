#include "mock_webhook/partner_state.hpp"

#include <stdexcept>
#include <utility>

namespace courier::mock {

namespace {

// FNV-1a: stable across runs and platforms, so fail_rate_400 picks the same keys every time.
double key_share(std::string_view key) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return static_cast<double>(h % 1000000ULL) / 1000000.0;
}

std::optional<courier::hmac_signer> make_signer(std::optional<std::string> secret) {
  if (!secret) {
    return std::nullopt;
  }
  return courier::hmac_signer(std::move(*secret));
}

std::optional<courier::standard_webhooks_signer> make_verifier(
    const std::vector<std::string>& secrets) {
  if (secrets.empty()) {
    return std::nullopt;
  }
  return courier::standard_webhooks_signer(secrets);
}

}  // namespace

partner_state::partner_state(std::optional<std::string> hmac_secret, chaos initial,
                             std::uint64_t seed, const standard_webhooks_check& sw)
    : signer_(make_signer(std::move(hmac_secret))),
      sw_verifier_(make_verifier(sw.secrets)),
      sw_tolerance_(sw.tolerance),
      chaos_(initial),
      random_(seed) {
  validate(chaos_);
}

void partner_state::set_standard_webhooks_secrets(const std::vector<std::string>& secrets) {
  auto verifier = make_verifier(secrets);
  const std::lock_guard<std::mutex> lock(mutex_);
  sw_verifier_ = std::move(verifier);
}

void partner_state::set_secret(std::optional<std::string> hmac_secret) {
  auto signer = make_signer(std::move(hmac_secret));
  const std::lock_guard<std::mutex> lock(mutex_);
  signer_ = std::move(signer);
}

delivery_decision partner_state::decide(std::optional<std::string_view> idempotency_key,
                                        std::string_view body,
                                        std::optional<std::string_view> signature,
                                        const webhook_headers& sw,
                                        std::chrono::steady_clock::time_point now,
                                        std::chrono::system_clock::time_point wall_now) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.total;
  if (!idempotency_key || idempotency_key->empty()) {
    return {delivery_outcome::missing_key, {}, "missing Idempotency-Key header"};
  }
  const std::string key(*idempotency_key);
  const auto [attempt, first_sight] = attempts_.try_emplace(key, 0);
  ++attempt->second;
  attempt_times_[key].push_back(std::chrono::system_clock::now());
  if (first_sight) {
    ++stats_.unique_keys;
  }
  if (signer_) {
    if (!signature) {
      ++stats_.fail_401;
      return {delivery_outcome::unauthorized, {}, "missing X-Signature header"};
    }
    if (!signer_->verify(body, *signature)) {
      ++stats_.fail_401;
      return {delivery_outcome::unauthorized, {}, "X-Signature does not match the body"};
    }
  }
  if (sw_verifier_) {
    const auto unix_now =
        std::chrono::duration_cast<std::chrono::seconds>(wall_now.time_since_epoch()).count();
    const auto v = sw_verifier_->verify(sw.id.value_or(""), sw.timestamp.value_or(""),
                                        sw.signature.value_or(""), body, unix_now, sw_tolerance_);
    if (v != courier::standard_webhooks_signer::verdict::verified) {
      ++stats_.fail_401;
      return {delivery_outcome::unauthorized, {}, courier::to_string(v)};
    }
  }
  if (chaos_.gone) {
    ++stats_.fail_410;
    return {delivery_outcome::gone, {}, "this endpoint is disabled"};
  }
  if (auto rule = key_rules_.find(key); rule != key_rules_.end() && rule->second.times != 0) {
    if (rule->second.times > 0) {
      --rule->second.times;
    }
    if (rule->second.status == 400) {
      ++stats_.fail_400;
      return {delivery_outcome::rejected, {}, "key rule"};
    }
    ++stats_.fail_503;
    return {delivery_outcome::unavailable, {}, "key rule"};
  }
  if (key_share(key) < chaos_.fail_rate_400) {
    ++stats_.fail_400;
    return {delivery_outcome::rejected, {}, "the partner rejects this shipment"};
  }
  if (now < outage_until_) {
    ++stats_.fail_503;
    return {delivery_outcome::unavailable, {}, "outage"};
  }
  // One draw decides both chaos modes, so each rate is its share of all requests.
  const double draw = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  if (draw < chaos_.fail_rate_503) {
    ++stats_.fail_503;
    return {delivery_outcome::unavailable, {}, "chaos"};
  }
  if (draw < chaos_.fail_rate_503 + chaos_.fail_rate_timeout) {
    ++stats_.fail_timeout;
    return {delivery_outcome::hang, {}, "chaos"};
  }
  if (!delivered_.insert(key).second) {
    ++stats_.duplicates;
    return {delivery_outcome::duplicate, chaos_.latency, {}};
  }
  ++stats_.ok;
  arrivals_.push_back(arrival{key, std::chrono::system_clock::now()});
  return {delivery_outcome::accepted, chaos_.latency, {}};
}

stats partner_state::snapshot() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void partner_state::set_chaos(chaos c) {
  validate(c);
  const std::lock_guard<std::mutex> lock(mutex_);
  chaos_ = c;
}

chaos partner_state::current_chaos() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return chaos_;
}

void partner_state::set_outage_until(std::chrono::steady_clock::time_point until) {
  const std::lock_guard<std::mutex> lock(mutex_);
  outage_until_ = until;
}

std::vector<arrival> partner_state::arrivals() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return arrivals_;
}

void partner_state::set_key_rule(const std::string& key, key_rule rule) {
  if (rule.status != 400 && rule.status != 503) {
    throw std::invalid_argument("a key rule answers 400 or 503, not " +
                                std::to_string(rule.status));
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  key_rules_[key] = rule;
}

std::map<std::string, std::vector<std::chrono::system_clock::time_point>>
partner_state::attempt_times() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return attempt_times_;
}

std::map<std::string, std::uint64_t> partner_state::attempts_by_key() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return attempts_;
}

}  // namespace courier::mock
