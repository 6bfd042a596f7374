#include "core/redrive/filter.hpp"

#include <gtest/gtest.h>

namespace courier::redrive {
namespace {

record dlq_record(const std::string& cls, const std::string& origin, const std::string& partition,
                  const std::string& last_failure, std::optional<std::string> key) {
  record r;
  r.topic = "d";
  r.offset = 1;
  r.key = std::move(key);
  r.headers = {{"courier.error.class", cls},
               {"courier.origin.topic", origin},
               {"courier.origin.partition", partition},
               {"courier.last.failure", last_failure}};
  return r;
}

TEST(Filter, UnsetFilterMatchesEverything) {
  EXPECT_TRUE(matches(filter{}, read_parked_record(dlq_record("http_503", "o", "0", "5", {}))));
}

TEST(Filter, EveryCriterionMustHold) {
  const parked_record p = read_parked_record(dlq_record("http_503", "o", "2", "1000", "k1"));
  filter f;
  f.error_classes = {"http_4xx", "http_503"};
  f.origin_topic = "o";
  f.origin_partition = 2;
  f.since_ms = 1000;
  f.until_ms = 1001;
  f.key = "k1";
  EXPECT_TRUE(matches(f, p));
  filter wrong_class = f;
  wrong_class.error_classes = {"timeout"};
  EXPECT_FALSE(matches(wrong_class, p));
  filter wrong_partition = f;
  wrong_partition.origin_partition = 3;
  EXPECT_FALSE(matches(wrong_partition, p));
  filter too_late = f;
  too_late.since_ms = 1001;
  EXPECT_FALSE(matches(too_late, p));
  filter until_is_exclusive = f;
  until_is_exclusive.until_ms = 1000;
  EXPECT_FALSE(matches(until_is_exclusive, p));
  filter wrong_key = f;
  wrong_key.key = "k2";
  EXPECT_FALSE(matches(wrong_key, p));
}

TEST(Filter, AnEndpointTakesOnlyTheRecordsThatNameIt) {
  auto for_zoom = dlq_record("http_503", "o", "0", "5", {});
  for_zoom.headers.emplace_back("courier.endpoint", "zoom");
  const auto unnamed = dlq_record("http_503", "o", "0", "5", {});
  filter f;
  f.endpoint = "zoom";
  EXPECT_TRUE(matches(f, read_parked_record(for_zoom)));
  EXPECT_FALSE(matches(f, read_parked_record(unnamed)));
  f.endpoint = "acme";
  EXPECT_FALSE(matches(f, read_parked_record(for_zoom)));
}

TEST(Filter, AMalformedPartitionIsNotAnyPartition) {
  const parked_record p = read_parked_record(dlq_record("c", "o", "x", "1", {}));
  ASSERT_TRUE(p.problem);
  EXPECT_NE(p.problem->find("courier.origin.partition"), std::string::npos) << *p.problem;
  EXPECT_NE(p.problem->find("d:0:1"), std::string::npos) << *p.problem;
  filter f;
  f.origin_partition = 0;
  EXPECT_FALSE(matches(f, p));
}

}  // namespace
}  // namespace courier::redrive
