#include "core/delivery/onward_move.hpp"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "core/model/idempotency_key.hpp"

namespace courier {
namespace {

using namespace std::chrono_literals;

const std::string source = "brew.shipments.v1";

record make_record(std::string topic = source) {
  record r;
  r.topic = std::move(topic);
  r.partition = 2;
  r.offset = 7;
  r.key = "key-7";
  r.value = R"({"n":7})";
  return r;
}

std::string header_of(const record& r, std::string_view name) {
  const auto v = find_header(r.headers, name);
  return v ? std::string{*v} : std::string{"<absent>"};
}

failure_info a_503(int attempts = 3) {
  attempt_answer a;
  a.status = 503;
  a.body = "busy";
  return failure_of(a, "http_503", {"first", "second"}, attempts, 1'800'000'000'000);
}

TEST(OnwardMove, AFailureNamesTheStatusWhenTheTransportSaidNothing) {
  attempt_answer a;
  a.status = 503;
  EXPECT_EQ(failure_message(a), "the receiver answered 503");
  a.error_message = "connection refused";
  EXPECT_EQ(failure_message(a), "connection refused");
  const auto f = failure_of(a, "connect", {"t"}, 2, 42);
  EXPECT_EQ(f.error_class, "connect");
  EXPECT_EQ(f.error_message, "connection refused");
  EXPECT_EQ(f.status, 503);
  EXPECT_EQ(f.attempts, 2);
  EXPECT_EQ(f.failed_at_ms, 42);
}

TEST(OnwardMove, ASourceRecordMovesToTheFirstTierWithItsKeyValueAndRetryHeaders) {
  const auto topics = route_topics_named(source, {5s, 30s}, "");
  const auto move =
      failure_move(make_record(), "shipments", topics, a_503(), false, tier_step::next, 9);
  EXPECT_EQ(move.to.what, destination::kind::tier);
  EXPECT_EQ(move.to.tier_index, 0);
  const auto& p = move.onward.produce;
  EXPECT_EQ(p.topic, source + ".retry-5s");
  EXPECT_EQ(p.partition, 2) << "the source's partition";
  EXPECT_EQ(p.key, std::optional<std::string>{"key-7"});
  EXPECT_EQ(p.value, R"({"n":7})");
  EXPECT_EQ(header_of(p, error_class_header), "http_503");
  EXPECT_EQ(header_of(p, attempts_header), "3");
  EXPECT_EQ(header_of(p, error_response_header), "busy");
  EXPECT_EQ(move.onward.from, (record_position{source, 2, 7}));
  EXPECT_EQ(move.onward.tag, 9U);
}

TEST(OnwardMove, APermanentFailureGoesToTheDlqAtOnce) {
  const auto topics = route_topics_named(source, {5s, 30s}, "");
  const auto move =
      failure_move(make_record(), "shipments", topics, a_503(), true, tier_step::next, 1);
  EXPECT_EQ(move.to.what, destination::kind::dlq);
  EXPECT_EQ(move.onward.produce.topic, "brew.shipments.dlq");
}

TEST(OnwardMove, FromTheLastTierARecordGoesToTheDlqUnlessItStaysInTheTiers) {
  const auto topics = route_topics_named(source, {5s, 30s}, "");
  const auto last = make_record(source + ".retry-30s");
  EXPECT_EQ(failure_move(last, "shipments", topics, a_503(), false, tier_step::next, 1).to.what,
            destination::kind::dlq);
  const auto again =
      failure_move(last, "shipments", topics, a_503(), false, tier_step::stay_in_tiers, 1);
  EXPECT_EQ(again.to.what, destination::kind::tier);
  EXPECT_EQ(again.onward.produce.topic, source + ".retry-30s");
}

TEST(OnwardMove, AParkedRecordGoesToTheLastTierFromTheSourceOrAnyTier) {
  const auto topics = route_topics_named(source, {5s, 30s}, "");
  for (const auto& from : {source, source + ".retry-5s", source + ".retry-30s"}) {
    const auto parked =
        failure_move(make_record(from), "shipments", topics, a_503(), false, tier_step::park, 1);
    EXPECT_EQ(parked.to.what, destination::kind::tier) << from;
    EXPECT_EQ(parked.onward.produce.topic, source + ".retry-30s") << from;
  }
}

receipt delivered_here() {
  receipt r;
  r.route = "shipments";
  r.attempts = 2;
  r.status = 200;
  r.first_attempt_ms = 1'800'000'000'000;
  r.delivered_ms = 1'800'000'001'000;
  r.instance = "courier-1:42";
  return r;
}

TEST(OnwardMove, ASourceRecordsReceiptNamesItsOwnPosition) {
  const auto r = receipt_of(make_record(), delivered_here());
  EXPECT_EQ(r.origin, (record_position{source, 2, 7}));
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.first_attempt_ms, 1'800'000'000'000);
}

TEST(OnwardMove, AReceiptNamesTheEndpointItsCopyWasFor) {
  auto copy = make_record();
  copy.headers.emplace_back(std::string{endpoint_header}, "zoom");
  EXPECT_EQ(receipt_of(copy, delivered_here()).endpoint, "zoom");
  EXPECT_EQ(receipt_of(make_record(), delivered_here()).endpoint, "") << "a route with one";
}

// A copy in the first tier of a record that first appeared at `source`:2:41.
record tier_copy(std::string attempts) {
  auto copy = make_record(source + ".retry-5s");
  copy.headers = {{std::string{origin_topic_header}, source},
                  {std::string{origin_partition_header}, "2"},
                  {std::string{origin_offset_header}, "41"},
                  {std::string{attempts_header}, std::move(attempts)},
                  {std::string{first_failure_header}, "1799999990000"}};
  return copy;
}

TEST(OnwardMove, ATierCopysReceiptNamesItsOriginAndAddsItsAttemptsSaturated) {
  const auto r = receipt_of(tier_copy("2147483647"), delivered_here());
  EXPECT_EQ(r.origin, (record_position{source, 2, 41}));
  EXPECT_EQ(r.attempts, 2147483647);
  EXPECT_EQ(r.first_attempt_ms, 1'799'999'990'000);
}

TEST(OnwardMove, ATierCopyWithHeadersThatDoNotReadIsReceiptedAsItIs) {
  const auto r = receipt_of(tier_copy("many"), delivered_here());
  EXPECT_EQ(r.origin, (record_position{source + ".retry-5s", 2, 7}));
  EXPECT_EQ(r.attempts, 2);
}

TEST(OnwardMove, AReceiptGoesToTheReceiptsTopicKeyedByTheIdempotencyKey) {
  const auto r = receipt_of(make_record(), delivered_here());
  const auto move = receipt_move(make_record(), "orders:3:14", r, "brew.shipments.receipts", 5);
  EXPECT_EQ(move.to.what, destination::kind::receipt);
  EXPECT_EQ(move.onward.produce.topic, "brew.shipments.receipts");
  EXPECT_EQ(move.onward.produce.partition, 2);
  EXPECT_EQ(move.onward.produce.key, std::optional<std::string>{"orders:3:14"});
  EXPECT_EQ(decode_receipt(std::string{move.onward.produce.value.view()}), r);
  EXPECT_EQ(move.onward.tag, 5U);
}

}  // namespace
}  // namespace courier
