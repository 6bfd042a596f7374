#include "core/delivery/status_classifier.hpp"

#include <gtest/gtest.h>

namespace courier {
namespace {

TEST(Classifier, EveryTwoHundredIsDelivered) {
  for (int s = 200; s <= 299; ++s) {
    EXPECT_EQ(classify_status(s), delivery_class::delivered) << s;
  }
}

TEST(Classifier, RequestTimeoutConflictAndTooManyRequestsAreRetriable) {
  EXPECT_EQ(classify_status(408), delivery_class::retriable);
  EXPECT_EQ(classify_status(409), delivery_class::retriable);
  EXPECT_EQ(classify_status(429), delivery_class::retriable);
}

TEST(Classifier, EveryServerErrorIsRetriable) {
  for (int s = 500; s <= 599; ++s) {
    EXPECT_EQ(classify_status(s), delivery_class::retriable) << s;
  }
  EXPECT_EQ(classify_status(501), delivery_class::retriable);
  EXPECT_EQ(classify_status(599), delivery_class::retriable);
}

TEST(Classifier, RedirectsArePermanentBecauseTheyAreNeverFollowed) {
  for (int s = 300; s <= 399; ++s) {
    EXPECT_EQ(classify_status(s), delivery_class::permanent) << s;
  }
}

TEST(Classifier, GoneIsPermanent) { EXPECT_EQ(classify_status(410), delivery_class::permanent); }

TEST(Classifier, OtherClientErrorsArePermanent) {
  for (int s = 400; s <= 499; ++s) {
    if (s == 408 || s == 409 || s == 429) {
      continue;
    }
    EXPECT_EQ(classify_status(s), delivery_class::permanent) << s;
  }
  EXPECT_EQ(classify_status(418), delivery_class::permanent);
}

TEST(Classifier, InformationalAsAFinalAnswerIsPermanent) {
  for (int s = 100; s <= 199; ++s) {
    EXPECT_EQ(classify_status(s), delivery_class::permanent) << s;
  }
}

TEST(Classifier, AStatusOutsideHttpIsAProtocolErrorAndRetriable) {
  EXPECT_EQ(classify_status(0), delivery_class::retriable);
  EXPECT_EQ(classify_status(99), delivery_class::retriable);
  EXPECT_EQ(classify_status(600), delivery_class::retriable);
  EXPECT_EQ(classify_status(-1), delivery_class::retriable);
  EXPECT_EQ(error_class(600, transport_error::none), "protocol");
}

TEST(Classifier, EveryTransportErrorButTheSsrfGuardsIsRetriable) {
  for (auto e : {transport_error::connect, transport_error::dns, transport_error::reset,
                 transport_error::timeout, transport_error::tls, transport_error::protocol,
                 transport_error::response_too_large}) {
    EXPECT_EQ(classify_transport(e), delivery_class::retriable) << to_string(e);
  }
  EXPECT_EQ(classify_transport(transport_error::ssrf_blocked), delivery_class::permanent);
  EXPECT_EQ(error_class(0, transport_error::ssrf_blocked), "ssrf_blocked");
}

TEST(Classifier, ErrorClassNamesTheStatusesThatMatterAlone) {
  EXPECT_EQ(error_class(503, transport_error::none), "http_503");
  EXPECT_EQ(error_class(429, transport_error::none), "http_429");
  EXPECT_EQ(error_class(410, transport_error::none), "http_410");
  EXPECT_EQ(error_class(401, transport_error::none), "http_401");
  EXPECT_EQ(error_class(403, transport_error::none), "http_403");
}

TEST(Classifier, ErrorClassBucketsTheOtherStatusesByHundreds) {
  EXPECT_EQ(error_class(500, transport_error::none), "http_5xx");
  EXPECT_EQ(error_class(599, transport_error::none), "http_5xx");
  EXPECT_EQ(error_class(400, transport_error::none), "http_4xx");
  EXPECT_EQ(error_class(408, transport_error::none), "http_4xx");
  EXPECT_EQ(error_class(418, transport_error::none), "http_4xx");
  EXPECT_EQ(error_class(301, transport_error::none), "http_3xx");
  EXPECT_EQ(error_class(100, transport_error::none), "http_1xx");
}

TEST(Classifier, ErrorClassOfATransportErrorIsItsName) {
  EXPECT_EQ(error_class(0, transport_error::timeout), "timeout");
  EXPECT_EQ(error_class(0, transport_error::connect), "connect");
  EXPECT_EQ(error_class(0, transport_error::dns), "dns");
  EXPECT_EQ(error_class(0, transport_error::reset), "reset");
  EXPECT_EQ(error_class(0, transport_error::tls), "tls");
  EXPECT_EQ(error_class(0, transport_error::protocol), "protocol");
  EXPECT_EQ(error_class(0, transport_error::response_too_large), "response_too_large");
  // A final status read whole is the receiver's answer, whatever happened to its body.
  EXPECT_EQ(error_class(400, transport_error::response_too_large), "http_4xx");
  EXPECT_EQ(error_class(503, transport_error::timeout), "http_503");
  EXPECT_EQ(error_class(101, transport_error::reset), "reset");
}

TEST(Classifier, NamesDeliveryClasses) {
  EXPECT_EQ(to_string(delivery_class::delivered), "delivered");
  EXPECT_EQ(to_string(delivery_class::retriable), "retriable");
  EXPECT_EQ(to_string(delivery_class::permanent), "permanent");
  EXPECT_EQ(to_string(transport_error::none), "none");
}

}  // namespace
}  // namespace courier
