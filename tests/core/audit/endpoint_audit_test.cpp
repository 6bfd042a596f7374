// `courier audit` of a route with several endpoints (core/audit/endpoint_audit.cpp): each
// endpoint proves the (record, endpoint) pairs the route sends it, by its receipts, tier and
// DLQ records; what no filter chose is filtered; a record that named no endpoint is proved by its
// DLQ record in the audit of no endpoint.

#include "core/audit/endpoint_audit.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/audit/audit_report.hpp"
#include "core/retry/receipt.hpp"
#include "core/retry/retry_headers.hpp"

namespace courier {
namespace {

const std::string source = "brew.shipments.v1";

record shipment(std::int64_t offset, const std::string& partner) {
  record r;
  r.topic = source;
  r.offset = offset;
  r.value = payload{"{}"};
  r.headers = {{"x-partner", partner}};
  return r;
}

record receipt_for(std::int64_t offset, const std::string& endpoint) {
  receipt rc;
  rc.route = "shipments";
  rc.origin = record_position{source, 0, offset};
  rc.status = 200;
  rc.endpoint = endpoint;
  record r;
  r.topic = source + ".receipts";
  r.value = payload{encode_receipt(rc)};
  return r;
}

record dlq_for(std::int64_t offset, const std::string& endpoint, const std::string& error_class) {
  record r;
  r.topic = source + ".dlq";
  r.headers = {{std::string{route_header}, "shipments"},
               {std::string{origin_topic_header}, source},
               {std::string{origin_partition_header}, "0"},
               {std::string{origin_offset_header}, std::to_string(offset)},
               {std::string{error_class_header}, error_class}};
  if (!endpoint.empty()) {
    r.headers.emplace_back(std::string{endpoint_header}, endpoint);
  }
  return r;
}

routing::endpoint_routing by_partner(std::optional<routing::endpoint_selector> from = {}) {
  std::vector<routing::endpoint_rule> rules;
  if (from) {
    rules = {{"acme", std::nullopt}, {"zoom", std::nullopt}};
  } else {
    rules.push_back(
        {"acme", routing::record_filter::parse({{"header", "x-partner"}, {"equals", "acme"}})});
    rules.push_back({"analytics", std::nullopt});
  }
  return routing::endpoint_routing{std::move(rules), std::move(from),
                                   routing::unknown_endpoint_action::dead_letter};
}

fate_book::fates fates_of(const endpoint_audit& a, const std::string& endpoint) {
  return report_of(a.audits().at(endpoint)).total;
}

TEST(EndpointAudit, EachEndpointProvesTheRecordsItWasForAndNamesWhatIsUnaccounted) {
  endpoint_audit audit{"shipments", source, {{0, {0, 4, 4}}}, by_partner(), true};
  audit.source_record(shipment(0, "acme"));
  audit.source_record(shipment(1, "zoom"));
  audit.source_record(shipment(2, "acme"));
  audit.source_record(shipment(3, "zoom"));
  audit.receipt_record(receipt_for(0, "acme"));
  audit.dlq_record(dlq_for(2, "acme", "http_400"), false);
  for (std::int64_t o : {0, 1, 2}) {
    audit.receipt_record(receipt_for(o, "analytics"));
  }
  // analytics' copy of 3 is named nowhere.
  const auto acme = fates_of(audit, "acme");
  EXPECT_EQ(acme.records, 2U) << "acme was for 0 and 2 only";
  EXPECT_EQ(acme.delivered, 1U);
  EXPECT_EQ(acme.dead_lettered_total(), 1U);
  EXPECT_EQ(acme.unaccounted, 0U);
  const auto analytics = fates_of(audit, "analytics");
  EXPECT_EQ(analytics.records, 4U);
  EXPECT_EQ(analytics.delivered, 3U);
  EXPECT_EQ(analytics.unaccounted, 1U);
  EXPECT_EQ(audit.filtered(), 0U);
}

TEST(EndpointAudit, ARecordForNoEndpointIsFilteredAndOneNamingNoneIsProvedByItsDlqRecord) {
  endpoint_audit filtering{
      "shipments",
      source,
      {{0, {0, 1, 1}}},
      [] {
        std::vector<routing::endpoint_rule> rules;
        rules.push_back(
            {"acme", routing::record_filter::parse({{"header", "x-partner"}, {"equals", "acme"}})});
        return routing::endpoint_routing{std::move(rules), std::nullopt,
                                         routing::unknown_endpoint_action::dead_letter};
      }(),
      true};
  filtering.source_record(shipment(0, "zoom"));
  EXPECT_EQ(filtering.filtered(), 1U);
  EXPECT_EQ(fates_of(filtering, "acme").records, 0U);

  endpoint_audit selecting{"shipments",
                           source,
                           {{0, {0, 2, 2}}},
                           by_partner(routing::endpoint_selector::parse({{"header", "x-partner"}})),
                           true};
  selecting.source_record(shipment(0, "acme"));
  selecting.source_record(shipment(1, "nobody"));
  selecting.receipt_record(receipt_for(0, "acme"));
  selecting.dlq_record(dlq_for(1, "", "unknown_endpoint"), false);
  EXPECT_EQ(fates_of(selecting, "acme").delivered, 1U);
  const auto none = fates_of(selecting, "");
  EXPECT_EQ(none.records, 1U);
  EXPECT_EQ(none.dead_lettered_total(), 1U);
  EXPECT_EQ(none.unaccounted, 0U);
}

TEST(EndpointAudit, ARouteWithOneEndpointIsAuditedAsBefore) {
  std::vector<routing::endpoint_rule> one{{"shipments", std::nullopt}};
  endpoint_audit audit{"shipments",
                       source,
                       {{0, {0, 2, 2}}},
                       routing::endpoint_routing{std::move(one), std::nullopt,
                                                 routing::unknown_endpoint_action::dead_letter},
                       false};
  audit.source_record(shipment(0, "acme"));
  audit.source_record(shipment(1, "zoom"));
  audit.receipt_record(receipt_for(0, ""));
  audit.dlq_record(dlq_for(1, "", "http_400"), false);
  ASSERT_EQ(audit.audits().size(), 1U);
  const auto f = fates_of(audit, "shipments");
  EXPECT_EQ(f.records, 2U);
  EXPECT_EQ(f.delivered, 1U);
  EXPECT_EQ(f.dead_lettered_total(), 1U);
}

}  // namespace
}  // namespace courier
