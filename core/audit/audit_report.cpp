#include "core/audit/audit_report.hpp"

#include <nlohmann/json.hpp>

namespace courier {

namespace {

void add_into(fate_book::fates& total, const fate_book::fates& f) {
  total.records += f.records;
  total.delivered += f.delivered;
  total.waiting += f.waiting;
  total.redriven += f.redriven;
  for (const auto& [klass, n] : f.dead_lettered) {
    total.dead_lettered[klass] += n;
  }
  total.pending += f.pending;
  total.unaccounted += f.unaccounted;
  total.receipts_without_record += f.receipts_without_record;
}

std::string counts_text(const fate_book::fates& f) {
  std::string s = std::to_string(f.records) + " records: " + std::to_string(f.delivered) +
                  " delivered, " + std::to_string(f.waiting) + " waiting in a tier, " +
                  std::to_string(f.dead_lettered_total()) + " in the DLQ";
  if (!f.dead_lettered.empty()) {
    s += " (";
    bool first = true;
    for (const auto& [klass, n] : f.dead_lettered) {
      s += (first ? "" : ", ") + klass + " " + std::to_string(n);
      first = false;
    }
    s += ")";
  }
  s += ", " + std::to_string(f.redriven) + " redriven, " + std::to_string(f.pending) +
       " pending, " + std::to_string(f.unaccounted) + " unaccounted";
  if (f.receipts_without_record != 0) {
    s += "; " + std::to_string(f.receipts_without_record) + " receipts name no record of the range";
  }
  return s;
}

std::string run_text(std::int64_t begin, std::int64_t end) {
  return end - begin == 1 ? std::to_string(begin)
                          : std::to_string(begin) + "-" + std::to_string(end - 1);
}

nlohmann::json counts_json(const fate_book::fates& f) {
  nlohmann::json j;
  j["records"] = f.records;
  j["delivered"] = f.delivered;
  j["waiting"] = f.waiting;
  j["redriven"] = f.redriven;
  j["dead_lettered"] = nlohmann::json::object();
  for (const auto& [klass, n] : f.dead_lettered) {
    j["dead_lettered"][klass] = n;
  }
  j["pending"] = f.pending;
  j["unaccounted"] = f.unaccounted;
  j["receipts_without_record"] = f.receipts_without_record;
  return j;
}

}  // namespace

audit_report report_of(const route_audit& audit) {
  audit_report r;
  r.route = audit.route();
  r.source = audit.source_topic();
  r.partitions = audit.tally();
  r.passed = audit.passed();
  for (const auto& p : r.partitions) {
    add_into(r.total, p.fates);
  }
  return r;
}

std::vector<std::string> audit_lines(const audit_report& report, std::size_t max_listed) {
  std::vector<std::string> lines;
  lines.push_back("route " + report.route + ", source " + report.source);
  for (const auto& p : report.partitions) {
    lines.push_back("  partition " + std::to_string(p.partition) + " [" +
                    std::to_string(p.range.from) + ", " + std::to_string(p.range.until) +
                    "), committed " +
                    (p.range.committed ? std::to_string(*p.range.committed) : "none") + ": " +
                    counts_text(p.fates));
  }
  lines.push_back("  total: " + counts_text(report.total));
  const auto& passed = report.passed;
  if (passed.unreadable + passed.other_routes != 0) {
    lines.push_back("  passed over: " + std::to_string(passed.unreadable) +
                    " unreadable records, " + std::to_string(passed.other_routes) +
                    " of other routes");
  }
  for (const auto& p : report.partitions) {
    const auto& runs = p.fates.unaccounted_offsets.runs();
    if (runs.empty()) {
      continue;
    }
    std::string line = "  unaccounted in partition " + std::to_string(p.partition) + ": ";
    std::size_t listed = 0;
    for (const auto& [begin, end] : runs) {
      if (listed == max_listed) {
        line += ", and " + std::to_string(runs.size() - listed) + " more runs (--json lists all)";
        break;
      }
      line += (listed == 0 ? "" : ", ") + run_text(begin, end);
      ++listed;
    }
    lines.push_back(line);
  }
  lines.push_back(report.unaccounted() == 0
                      ? "every record is accounted for"
                      : std::to_string(report.unaccounted()) + (report.unaccounted() == 1
                                                                    ? " record is unaccounted"
                                                                    : " records are unaccounted"));
  return lines;
}

std::string audit_json(const audit_report& report) {
  nlohmann::json j;
  j["route"] = report.route;
  j["source"] = report.source;
  j["unaccounted"] = report.unaccounted();
  j["partitions"] = nlohmann::json::array();
  for (const auto& p : report.partitions) {
    auto pj = counts_json(p.fates);
    pj["partition"] = p.partition;
    pj["from"] = p.range.from;
    pj["until"] = p.range.until;
    pj["committed"] = p.range.committed ? nlohmann::json(*p.range.committed) : nlohmann::json{};
    pj["unaccounted_offsets"] = nlohmann::json::array();
    for (const auto& [begin, end] : p.fates.unaccounted_offsets.runs()) {
      pj["unaccounted_offsets"].push_back({begin, end});
    }
    j["partitions"].push_back(std::move(pj));
  }
  j["total"] = counts_json(report.total);
  j["passed_over"] = {{"unreadable", report.passed.unreadable},
                      {"other_routes", report.passed.other_routes}};
  return j.dump();
}

}  // namespace courier
