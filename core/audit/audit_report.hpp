#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/audit/route_audit.hpp"

namespace courier {

// What `courier audit` prints for one route's range: per source partition how many records were
// delivered, are waiting in a retry tier, are in the DLQ (by error class), were redriven, are not
// processed yet (pending: at or past the commit point), and are unaccounted (listed by offset),
// then the totals.
struct audit_report {
  std::string route;
  std::string source;
  std::vector<route_audit::partition_fates> partitions;
  fate_book::fates total;  // unaccounted_offsets stays empty: they are per partition
  route_audit::passed_over passed;

  [[nodiscard]] std::uint64_t unaccounted() const { return total.unaccounted; }
};

audit_report report_of(const route_audit& audit);

// For a person: one line per partition, the totals, then every unaccounted offset (as runs,
// "42" or "57-60"), at most `max_listed` runs per partition.
std::vector<std::string> audit_lines(const audit_report& report, std::size_t max_listed = 50);

// For a machine: one JSON object,
//   {"route":..,"source":..,"unaccounted":N,"partitions":[{"partition":..,"from":..,"until":..,
//    "committed":..|null,"records":..,"delivered":..,"waiting":..,"redriven":..,
//    "dead_lettered":{class:n,..},"pending":..,"unaccounted":..,
//    "unaccounted_offsets":[[begin,end),..],"receipts_without_record":..},..],
//    "total":{..the same counts..},"passed_over":{"unreadable":..,"other_routes":..}}
// with every unaccounted run listed.
std::string audit_json(const audit_report& report);

}  // namespace courier
