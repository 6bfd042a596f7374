#include "core/model/error_classes.hpp"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/delivery/status_classifier.hpp"
#include "core/model/transport_error.hpp"

// The list of error classes (what redrive --class and routes[].auto_redrive.classes may name)
// holds every class an answer or a failed request can be given, and nothing it cannot.
namespace courier {
namespace {

const transport_error every_transport_error[] = {
    transport_error::none,        transport_error::connect,
    transport_error::dns,         transport_error::reset,
    transport_error::timeout,     transport_error::tls,
    transport_error::protocol,    transport_error::response_too_large,
    transport_error::ssrf_blocked};

TEST(ErrorClasses, EveryClassAnAnswerOrAFailedRequestGetsIsListed) {
  std::set<std::string> written;
  for (int status = 0; status <= 700; ++status) {
    for (const auto e : every_transport_error) {
      if (status >= 200 && status <= 299) {
        continue;  // delivered (with a body that failed after the head too): no error class
      }
      const auto c = error_class(status, e);
      EXPECT_TRUE(is_error_class(c)) << c << " (status " << status << ", " << to_string(e) << ")";
      written.insert(c);
    }
  }
  for (const auto* c : {error_class_name::key_parked, error_class_name::unknown_endpoint,
                        error_class_name::endpoint_paused, error_class_name::breaker_open,
                        error_class_name::retry_budget}) {
    written.insert(c);
  }
  // And nothing else: each listed class is one of them.
  for (const auto c : error_classes) {
    EXPECT_EQ(written.count(std::string{c}), 1U) << c << " is listed but never written";
  }
}

}  // namespace
}  // namespace courier
