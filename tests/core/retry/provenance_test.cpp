#include "core/retry/provenance.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/retry/retry_headers.hpp"

namespace courier {
namespace {

TEST(Provenance, CouriersOwnHeadersAreProvenanceAndWhatAProducerMayChooseIsNot) {
  for (const auto name :
       {origin_topic_header, origin_partition_header, origin_offset_header, origin_timestamp_header,
        attempts_header, retry_tier_header, retry_due_header, first_failure_header,
        last_failure_header, route_header, followers_header, error_class_header}) {
    EXPECT_TRUE(is_provenance_header(name)) << name;
  }
  EXPECT_TRUE(is_provenance_header("courier.error.anything"));
  for (const auto& name : {std::string{idempotency_key_header}, std::string{correlation_id_header},
                           std::string{"courier.redrive.count"}, std::string{"traceparent"},
                           std::string{"courier.origin"}, std::string{"x-courier.origin.topic"}}) {
    EXPECT_FALSE(is_provenance_header(name)) << name;
  }
}

TEST(Provenance, ASourceRecordLosesItsProvenanceHeadersAndKeepsTheRestInOrder) {
  header_list h{{"traceparent", "00-1"},
                {std::string{origin_topic_header}, "other.route.source"},
                {std::string{idempotency_key_header}, "order-7"},
                {std::string{origin_offset_header}, "12"},
                {std::string{attempts_header}, "2147483647"},
                {std::string{origin_topic_header}, "again"},
                {"courier.redrive.count", "1"}};
  const auto dropped = drop_untrusted_provenance(h);
  EXPECT_EQ(dropped, (std::vector<std::string>{std::string{origin_topic_header},
                                               std::string{origin_offset_header},
                                               std::string{attempts_header}}));
  EXPECT_EQ(h, (header_list{{"traceparent", "00-1"},
                            {std::string{idempotency_key_header}, "order-7"},
                            {"courier.redrive.count", "1"}}));
}

TEST(Provenance, ARecordWithoutProvenanceIsLeftAsItIs) {
  header_list h{{"content-type", "application/json"}, {"traceparent", "00-1"}};
  const auto before = h;
  EXPECT_TRUE(drop_untrusted_provenance(h).empty());
  EXPECT_EQ(h, before);
}

}  // namespace
}  // namespace courier
