#include "core/audit/endpoint_audit.hpp"

#include <optional>
#include <utility>

#include "core/retry/receipt.hpp"
#include "core/retry/retry_headers.hpp"
#include "core/routing/endpoint_fanout.hpp"

namespace courier {

endpoint_audit::endpoint_audit(const std::string& route, const std::string& source_topic,
                               const std::map<std::int32_t, audited_partition>& partitions,
                               routing::endpoint_routing routing, bool several)
    : routing_(std::move(routing)), source_(source_topic), several_(several), ranges_(partitions) {
  for (const auto& rule : routing_.rules()) {
    audits_.emplace(rule.name, route_audit{route, source_topic, partitions});
  }
  if (several_) {
    audits_.emplace("", route_audit{route, source_topic, partitions});
  }
}

route_audit& endpoint_audit::named(const record& r) {
  if (!several_) {
    return audits_.begin()->second;
  }
  const auto name = find_header(r.headers, endpoint_header);
  const auto it = name ? audits_.find(std::string{*name}) : audits_.end();
  return it == audits_.end() ? audits_.at("") : it->second;
}

void endpoint_audit::source_record(const record& r) {
  if (!several_) {
    audits_.begin()->second.source_record(r);
    return;
  }
  const auto d = routing::endpoints_for(routing_, r, source_);
  if (d.unknown) {
    switch (routing_.on_unknown()) {
      case routing::unknown_endpoint_action::dead_letter:
        audits_.at("").source_record(r);
        return;
      case routing::unknown_endpoint_action::skip:
        break;
    }
  }
  if (d.endpoints.empty()) {
    ++filtered_;
    return;
  }
  for (const auto i : d.endpoints) {
    audits_.at(routing_.rules()[i].name).source_record(r);
  }
}

void endpoint_audit::receipt_record(const record& r) {
  if (!several_) {
    audits_.begin()->second.receipt_record(r);
    return;
  }
  std::optional<std::string> endpoint;
  try {
    endpoint = decode_receipt(r.value.view()).endpoint;
  } catch (const receipt_error&) {
    // Unreadable: the audit of no endpoint counts it as such.
  }
  const auto it = endpoint ? audits_.find(*endpoint) : audits_.end();
  (it == audits_.end() ? audits_.at("") : it->second).receipt_record(r);
}

void endpoint_audit::tier_record(const record& r) { named(r).tier_record(r); }

void endpoint_audit::dlq_record(const record& r, bool redriven) {
  named(r).dlq_record(r, redriven);
}

}  // namespace courier
