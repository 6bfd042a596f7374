#include "mock_webhook/chaos.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace courier::mock {

namespace {

// An hour is far beyond any client timeout; more is a typo.
constexpr std::chrono::milliseconds max_latency{3'600'000};

void check_rate(const char* field, double value) {
  if (!std::isfinite(value) || value < 0 || value > 1) {
    throw std::invalid_argument(std::string(field) + " must be between 0 and 1, got " +
                                std::to_string(value));
  }
}

double rate_field(const nlohmann::json& doc, const char* field) {
  const auto it = doc.find(field);
  if (it == doc.end()) {
    return 0;
  }
  if (!it->is_number()) {
    throw std::invalid_argument(std::string(field) + " must be a number");
  }
  const double value = it->get<double>();
  check_rate(field, value);
  return value;
}

}  // namespace

void validate(const chaos& c) {
  check_rate("fail_rate_503", c.fail_rate_503);
  check_rate("fail_rate_timeout", c.fail_rate_timeout);
  check_rate("fail_rate_400", c.fail_rate_400);
  if (c.fail_rate_503 + c.fail_rate_timeout > 1 + 1e-9) {
    throw std::invalid_argument("fail_rate_503 + fail_rate_timeout must not exceed 1");
  }
  if (c.latency.count() < 0 || c.latency > max_latency) {
    throw std::invalid_argument("latency_ms must be between 0 and " +
                                std::to_string(max_latency.count()));
  }
}

chaos chaos_from_json(const nlohmann::json& doc) {
  if (!doc.is_object()) {
    throw std::invalid_argument("chaos must be a JSON object");
  }
  for (const auto& item : doc.items()) {
    const auto& key = item.key();
    if (key != "fail_rate_503" && key != "fail_rate_timeout" && key != "fail_rate_400" &&
        key != "latency_ms" && key != "gone") {
      // A typo must not silently leave the partner healthy.
      throw std::invalid_argument("unknown field '" + key + "'");
    }
  }
  chaos c;
  c.fail_rate_503 = rate_field(doc, "fail_rate_503");
  c.fail_rate_timeout = rate_field(doc, "fail_rate_timeout");
  c.fail_rate_400 = rate_field(doc, "fail_rate_400");
  if (const auto it = doc.find("gone"); it != doc.end()) {
    if (!it->is_boolean()) {
      throw std::invalid_argument("gone must be true or false");
    }
    c.gone = it->get<bool>();
  }
  if (const auto it = doc.find("latency_ms"); it != doc.end()) {
    if (!it->is_number_integer()) {
      throw std::invalid_argument("latency_ms must be an integer");
    }
    const auto ms = it->get<std::int64_t>();
    if (ms < 0 || ms > max_latency.count()) {
      throw std::invalid_argument("latency_ms must be between 0 and " +
                                  std::to_string(max_latency.count()));
    }
    c.latency = std::chrono::milliseconds(ms);
  }
  validate(c);
  return c;
}

nlohmann::json to_json(const chaos& c) {
  return nlohmann::json{{"fail_rate_503", c.fail_rate_503},
                        {"fail_rate_timeout", c.fail_rate_timeout},
                        {"fail_rate_400", c.fail_rate_400},
                        {"latency_ms", c.latency.count()},
                        {"gone", c.gone}};
}

}  // namespace courier::mock
