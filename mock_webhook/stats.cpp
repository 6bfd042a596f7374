#include "mock_webhook/stats.hpp"

#include <nlohmann/json.hpp>

namespace courier::mock {

nlohmann::json to_json(const stats& s) {
  return nlohmann::json{{"total", s.total},          {"ok", s.ok},
                        {"fail_503", s.fail_503},    {"fail_timeout", s.fail_timeout},
                        {"fail_401", s.fail_401},    {"fail_400", s.fail_400},
                        {"fail_410", s.fail_410},    {"unique_keys", s.unique_keys},
                        {"duplicates", s.duplicates}};
}

}  // namespace courier::mock
