#include "core/audit/route_audit.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "core/audit/audit_report.hpp"
#include "core/retry/receipt.hpp"
#include "core/retry/retry_headers.hpp"

namespace courier {
namespace {

const std::string source = "brew.shipments.v1";

record source_record(std::int32_t partition, std::int64_t offset) {
  record r;
  r.topic = source;
  r.partition = partition;
  r.offset = offset;
  r.value = payload{"{}"};
  return r;
}

record receipt_record(const std::string& route, const std::string& topic, std::int32_t partition,
                      std::int64_t offset) {
  receipt rc;
  rc.route = route;
  rc.origin = record_position{topic, partition, offset};
  rc.attempts = 1;
  rc.status = 200;
  rc.instance = "test:1";
  record r;
  r.topic = source + ".receipts";
  r.value = payload{encode_receipt(rc)};
  return r;
}

header_list origin_headers(const std::string& route, std::int32_t partition, std::int64_t offset) {
  return {{std::string{route_header}, route},
          {std::string{origin_topic_header}, source},
          {std::string{origin_partition_header}, std::to_string(partition)},
          {std::string{origin_offset_header}, std::to_string(offset)}};
}

record moved_record(const std::string& topic, std::int64_t at, const std::string& route,
                    std::int32_t partition, std::int64_t offset,
                    const std::string& error_class = "") {
  record r;
  r.topic = topic;
  r.partition = partition;
  r.offset = at;
  r.headers = origin_headers(route, partition, offset);
  if (!error_class.empty()) {
    r.headers.emplace_back(std::string{error_class_header}, error_class);
  }
  return r;
}

using runs = std::map<std::int64_t, std::int64_t>;

TEST(RouteAudit, EachPlaceTellsTheFateOfItsOriginAndAMissingRecordIsUnaccountedByOffset) {
  route_audit audit{"shipments", source, {{0, {0, 10, 10}}, {1, {0, 4, std::nullopt}}}};
  for (std::int64_t o = 0; o < 10; ++o) {
    audit.source_record(source_record(0, o));
  }
  for (std::int64_t o = 0; o < 4; ++o) {
    audit.source_record(source_record(1, o));
  }
  for (std::int64_t o : {0, 1, 2, 3, 5, 8}) {
    audit.receipt_record(receipt_record("shipments", source, 0, o));
  }
  audit.receipt_record(receipt_record("shipments", source, 1, 0));
  audit.tier_record(moved_record(source + ".retry-5s", 0, "shipments", 0, 4));
  audit.dlq_record(moved_record(source + ".dlq", 0, "shipments", 0, 6, "http_400"), false);
  audit.dlq_record(moved_record(source + ".dlq", 1, "shipments", 0, 9, "http_503"), true);
  // 0:7 is named nowhere below the commit point; partition 1 has no commit yet.

  const auto report = report_of(audit);
  ASSERT_EQ(report.partitions.size(), 2U);
  const auto& p0 = report.partitions[0].fates;
  EXPECT_EQ(p0.records, 10U);
  EXPECT_EQ(p0.delivered, 6U);
  EXPECT_EQ(p0.waiting, 1U);
  EXPECT_EQ(p0.dead_lettered, (std::map<std::string, std::uint64_t>{{"http_400", 1}}));
  EXPECT_EQ(p0.redriven, 1U);
  EXPECT_EQ(p0.unaccounted_offsets.runs(), (runs{{7, 8}}));
  const auto& p1 = report.partitions[1].fates;
  EXPECT_EQ(p1.delivered, 1U);
  EXPECT_EQ(p1.pending, 3U);
  EXPECT_EQ(p1.unaccounted, 0U);
  EXPECT_EQ(report.unaccounted(), 1U);
  EXPECT_EQ(report.total.records, 14U);
  EXPECT_EQ(report.total.delivered, 7U);

  const auto lines = audit_lines(report);
  EXPECT_EQ(lines.back(), "1 record is unaccounted");
  EXPECT_NE(std::find(lines.begin(), lines.end(), "  unaccounted in partition 0: 7"), lines.end());

  const auto j = nlohmann::json::parse(audit_json(report));
  EXPECT_EQ(j["unaccounted"], 1);
  EXPECT_EQ(j["partitions"][0]["unaccounted_offsets"], nlohmann::json::parse("[[7,8]]"));
  EXPECT_EQ(j["partitions"][0]["dead_lettered"]["http_400"], 1);
  EXPECT_TRUE(j["partitions"][1]["committed"].is_null());
  EXPECT_EQ(j["total"]["delivered"], 7);
}

TEST(RouteAudit, ASourceRecordThatClaimsAnotherOffsetIsAuditedAsItselfAndHidesNothing) {
  route_audit audit{"shipments", source, {{0, {0, 4, 4}}}};
  for (std::int64_t o = 0; o < 3; ++o) {
    audit.source_record(source_record(0, o));
  }
  // 0:3 was written by a producer with courier.origin.* naming 0:1, which was lost. courier took
  // the headers off, so the receipt it wrote names 0:3.
  auto forged = source_record(0, 3);
  forged.headers = origin_headers("shipments", 0, 1);
  audit.source_record(forged);
  audit.receipt_record(receipt_record("shipments", source, 0, 0));
  audit.receipt_record(receipt_record("shipments", source, 0, 2));
  audit.receipt_record(receipt_record("shipments", source, 0, 3));

  const auto report = report_of(audit);
  EXPECT_EQ(report.total.records, 4U) << "the forged record is a record of the range";
  EXPECT_EQ(report.total.delivered, 3U);
  ASSERT_EQ(report.unaccounted(), 1U);
  const auto& lost = report.partitions.at(0).fates.unaccounted_offsets.runs();
  ASSERT_EQ(lost.size(), 1U);
  EXPECT_EQ(lost.begin()->first, 1) << "the lost offset is named";
}

TEST(RouteAudit, OtherRoutesAndUnreadableRecordsAreNoFateOfTheRange) {
  route_audit audit{"shipments", source, {{0, {0, 3, 3}}}};
  for (std::int64_t o = 0; o < 3; ++o) {
    audit.source_record(source_record(0, o));
  }
  audit.receipt_record(receipt_record("other", source, 0, 0));
  audit.receipt_record(receipt_record("shipments", "another.topic", 0, 1));
  record garbage;
  garbage.value = payload{"not json"};
  audit.receipt_record(garbage);
  audit.dlq_record(moved_record(source + ".dlq", 0, "other", 0, 1, "http_400"), false);
  auto bad = moved_record(source + ".dlq", 1, "shipments", 0, 2, "http_400");
  bad.headers[3].second = "soon";  // courier.origin.offset that is no number
  audit.dlq_record(bad, false);

  const auto report = report_of(audit);
  EXPECT_EQ(report.total.records, 3U);
  EXPECT_EQ(report.total.delivered, 0U);
  EXPECT_EQ(report.unaccounted(), 3U) << "nothing of this route names them";
  EXPECT_EQ(report.passed.other_routes, 2U);
  EXPECT_EQ(report.passed.unreadable, 2U)
      << "the receipt that is no JSON, the DLQ record without an origin offset";
}

TEST(RouteAudit, ARedrivenRecordDeliveredLaterIsDeliveredAndOneDeadLetteredAgainIsInTheDlq) {
  route_audit audit{"shipments", source, {{0, {0, 2, 2}}}};
  audit.source_record(source_record(0, 0));
  audit.source_record(source_record(0, 1));
  // Both went to the DLQ and were redriven; 0 was delivered then, 1 failed again.
  audit.dlq_record(moved_record(source + ".dlq", 0, "shipments", 0, 0, "http_503"), true);
  audit.dlq_record(moved_record(source + ".dlq", 1, "shipments", 0, 1, "http_503"), true);
  audit.receipt_record(receipt_record("shipments", source, 0, 0));
  audit.dlq_record(moved_record(source + ".dlq", 2, "shipments", 0, 1, "http_400"), false);

  const auto f = report_of(audit).total;
  EXPECT_EQ(f.delivered, 1U);
  EXPECT_EQ(f.dead_lettered, (std::map<std::string, std::uint64_t>{{"http_400", 1}}));
  EXPECT_EQ(f.redriven, 0U);
  EXPECT_EQ(f.unaccounted, 0U);
}

}  // namespace
}  // namespace courier
