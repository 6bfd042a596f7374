#pragma once

// The `courier` executable as a child process (COURIER_BINARY), its output in a log file; for
// the integration and the end-to-end suites.

#include <string>
#include <utility>
#include <vector>

#include "tests/support/child_process.hpp"

namespace courier::testing {

class courier_process : public child_process {
 public:
  // courier's own variables come only from the test, never from the caller's environment.
  courier_process(const std::vector<std::string>& args, const std::vector<std::string>& env,
                  std::string log_path)
      : child_process(COURIER_BINARY, args, env, std::move(log_path),
                      {"HMAC_SECRET", "HMAC_SECRET_FILE", "STANDARD_WEBHOOKS_SECRETS",
                       "STANDARD_WEBHOOKS_SECRETS_FILE", "KAFKA_BROKERS", "WEBHOOK_URL"}) {}
};

}  // namespace courier::testing
