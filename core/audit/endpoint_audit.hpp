#pragma once

// `courier audit` of a route with several endpoints (docs/endpoints.md): one route_audit per
// endpoint, each proving the fate of the (record, endpoint) pairs the route sends there. A
// source record goes to the audits of the endpoints the route's filters or selection send it to
// (core/routing/endpoint_fanout.hpp, endpoints_for), so each expects exactly the records that
// endpoint was for; a receipt goes to the audit its "endpoint" names, a tier or DLQ record to
// the one its courier.endpoint names. A record that names no endpoint and is dead-lettered for it
// (on_unknown_endpoint "dead_letter") is proved in the audit of no endpoint (named ""); one the
// route skips or no filter chose is counted as filtered. A route with one endpoint has one audit,
// named after the route, which sees every record as route_audit alone would.

#include <cstdint>
#include <map>
#include <string>

#include "core/audit/route_audit.hpp"
#include "core/model/record.hpp"
#include "core/routing/endpoint_routing.hpp"

namespace courier {

class endpoint_audit {
 public:
  // `several`: the route has routes[].endpoints (its records name their endpoint); else the one
  // rule of `routing` is the route itself.
  endpoint_audit(const std::string& route, const std::string& source_topic,
                 const std::map<std::int32_t, audited_partition>& partitions,
                 routing::endpoint_routing routing, bool several);

  void source_record(const record& r);
  void receipt_record(const record& r);
  void tier_record(const record& r);
  void dlq_record(const record& r, bool redriven);

  // By endpoint name; "" (with several endpoints): the records that named none.
  [[nodiscard]] const std::map<std::string, route_audit>& audits() const { return audits_; }
  // Source records for none of the endpoints (filters, or a name skipped).
  [[nodiscard]] std::uint64_t filtered() const { return filtered_; }
  [[nodiscard]] bool several() const { return several_; }
  [[nodiscard]] const std::map<std::int32_t, audited_partition>& ranges() const { return ranges_; }

 private:
  // The audit a tier or DLQ record's courier.endpoint names (the route's own with one endpoint;
  // the audit of no endpoint for a name that is none of them, or none).
  route_audit& named(const record& r);

  routing::endpoint_routing routing_;
  std::string source_;
  bool several_;
  std::map<std::int32_t, audited_partition> ranges_;
  std::map<std::string, route_audit> audits_;
  std::uint64_t filtered_ = 0;
};

}  // namespace courier
