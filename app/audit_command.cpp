#include "app/audit_command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "core/audit/audit_report.hpp"
#include "core/audit/endpoint_audit.hpp"
#include "core/audit/route_audit.hpp"
#include "core/flow/offset_map.hpp"
#include "core/kafka/admin.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka/range_reader.hpp"
#include "app/audit_bounds.hpp"
#include "topology/topics.hpp"
#include "core/redrive/ledger.hpp"
#include "core/redrive/setup.hpp"

namespace courier::app {

namespace {

constexpr int exit_unaccounted = 1;
constexpr int exit_usage = 2;
constexpr int exit_kafka = 3;

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// `topic`'s partitions, or none when the cluster does not have it.
std::optional<int> partitions_if_any(kafka::range_reader& reader, const std::string& topic) {
  try {
    return reader.partition_count(topic);
  } catch (const kafka::kafka_error& e) {
    if (e.code() == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
      return std::nullopt;
    }
    throw;
  }
}

struct audit_plan {
  const route_config* route = nullptr;
  route_topics topics;
  std::optional<audit_bound> from;
  std::optional<audit_bound> until;
};

// Everything that can be checked without Kafka; prints the error and returns nothing otherwise.
std::optional<audit_plan> plan_of(const courier_config& cfg, const audit_options& o) {
  audit_plan plan;
  const auto it = std::find_if(cfg.routes.begin(), cfg.routes.end(),
                               [&](const route_config& r) { return r.name == o.route; });
  if (it == cfg.routes.end()) {
    std::string names;
    for (const auto& r : cfg.routes) {
      names += (names.empty() ? "" : ", ") + r.name;
    }
    std::fprintf(stderr, "courier audit: --route %s: the config has no such route (it has: %s)\n",
                 o.route.c_str(), names.c_str());
    return std::nullopt;
  }
  plan.route = &*it;
  plan.topics = topics_of(*it);
  if (plan.topics.receipts.empty()) {
    std::fprintf(stderr,
                 "courier audit: route %s has no receipts_topic: a delivery is proven by its "
                 "receipt; set routes[%zu].receipts_topic (records delivered before it was set "
                 "cannot be proven)\n",
                 o.route.c_str(), static_cast<std::size_t>(it - cfg.routes.begin()));
    return std::nullopt;
  }
  const auto now = now_ms();
  for (const auto& [flag, text, out] :
       {std::tuple{"--from", &o.from, &plan.from}, std::tuple{"--until", &o.until, &plan.until}}) {
    if (!*text) {
      continue;
    }
    *out = parse_audit_bound(**text, now);
    if (!*out) {
      std::fprintf(stderr, "courier audit: %s\n", audit_bound_expected(flag, **text).c_str());
      return std::nullopt;
    }
  }
  return plan;
}

// A topic of the route that is missing (`topics ensure` creates them): the source cannot be
// read, and a missing receipts, tier or DLQ topic would make every record it should name look
// unaccounted.
class missing_topic : public std::runtime_error {
 public:
  explicit missing_topic(const std::string& topic)
      : std::runtime_error("topic " + topic +
                           " does not exist (run `courier topics ensure` with this config)") {}
};

int required_partitions(kafka::range_reader& reader, const std::string& topic) {
  const auto partitions = partitions_if_any(reader, topic);
  if (!partitions) {
    throw missing_topic{topic};
  }
  return *partitions;
}

// The source partitions' ranges, clipped to what the log holds, with the group's commits.
std::map<std::int32_t, audited_partition> source_ranges(kafka::range_reader& reader,
                                                        const kafka::cluster& at,
                                                        const courier_config& cfg,
                                                        const audit_plan& plan,
                                                        std::chrono::milliseconds timeout) {
  const auto& source = plan.topics.source;
  const int partitions = required_partitions(reader, source);
  const auto commits =
      kafka::committed_offsets(at, cfg.kafka.group_id, source, partitions, timeout);
  std::map<std::int32_t, audited_partition> out;
  for (const auto& whole : reader.ranges(source, partitions)) {
    const auto at_time = [&](std::int64_t ms) {
      return reader.offset_at_time(source, whole.partition, ms);
    };
    audited_partition p;
    p.from = std::clamp(offset_of(plan.from, whole.partition, whole.low, at_time), whole.low,
                        whole.high);
    p.until =
        std::clamp(offset_of(plan.until, whole.partition, whole.high, at_time), p.from, whole.high);
    if (const auto c = commits.find(whole.partition); c != commits.end()) {
      p.committed = c->second;
    }
    out.emplace(whole.partition, p);
  }
  return out;
}

void read_whole(kafka::range_reader& reader, const std::string& topic,
                const std::function<void(record&&)>& each) {
  const int partitions = required_partitions(reader, topic);
  reader.read(topic, reader.ranges(topic, partitions), [&](record&& r) {
    each(std::move(r));
    return true;
  });
}

// The tier records the group has not finished with: past each partition's commit point and not
// in the offset map committed beside it.
void read_waiting(kafka::range_reader& reader, const kafka::cluster& at, const std::string& group,
                  const std::string& tier, std::chrono::milliseconds timeout,
                  endpoint_audit& audit) {
  const int partitions = required_partitions(reader, tier);
  const auto commits = kafka::committed_commits(at, group, tier, partitions, timeout);
  for (auto range : reader.ranges(tier, partitions)) {
    done_offsets done;
    if (const auto c = commits.find(range.partition); c != commits.end()) {
      range.low = std::max(range.low, c->second.offset);
      static_cast<void>(decode_offset_map(c->second.metadata, c->second.offset, done));
    }
    reader.read(tier, {range}, [&](record&& r) {
      if (!done.contains(r.offset)) {
        audit.tier_record(r);
      }
      return true;
    });
  }
}

// Prints the audit (per endpoint on a route with several: a heading and its lines, or one JSON
// object {"route":..,"filtered":N,"unaccounted":N,"endpoints":{name: the report's object}}) and
// returns the records unaccounted for.
std::uint64_t print_audit(const endpoint_audit& audit, bool json) {
  if (!audit.several()) {
    const auto report = report_of(audit.audits().begin()->second);
    if (json) {
      std::printf("%s\n", audit_json(report).c_str());
    } else {
      for (const auto& line : audit_lines(report)) {
        std::printf("%s\n", line.c_str());
      }
    }
    return report.unaccounted();
  }
  std::uint64_t unaccounted = 0;
  nlohmann::json out{{"endpoints", nlohmann::json::object()}, {"filtered", audit.filtered()}};
  for (const auto& [name, one] : audit.audits()) {
    const auto report = report_of(one);
    if (name.empty() && report.total.records == 0 && report.total.dead_lettered_total() == 0) {
      continue;  // no record named no endpoint
    }
    unaccounted += report.unaccounted();
    const std::string label =
        name.empty() ? "(no endpoint: dead-lettered as unknown_endpoint)" : name;
    if (json) {
      out["endpoints"][label] = nlohmann::json::parse(audit_json(report));
      out["route"] = report.route;
      continue;
    }
    std::printf("endpoint %s\n", label.c_str());
    for (const auto& line : audit_lines(report)) {
      std::printf("  %s\n", line.c_str());
    }
  }
  if (json) {
    out["unaccounted"] = unaccounted;
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("filtered (for no endpoint): %llu\n",
                static_cast<unsigned long long>(audit.filtered()));
  }
  return unaccounted;
}

int audit_route(const courier_config& cfg, const audit_plan& plan, const audit_options& o) {
  const kafka::cluster at = topology::cluster_of(cfg);
  kafka::range_reader reader{at, o.timeout};
  const auto endpoints = endpoints_of(*plan.route);
  endpoint_audit audit{plan.route->name, plan.topics.source,
                       source_ranges(reader, at, cfg, plan, o.timeout),
                       routing_of(*plan.route, endpoints), !plan.route->endpoints.empty()};

  std::vector<kafka::partition_range> source;
  for (const auto& [p, range] : audit.ranges()) {
    source.push_back(kafka::partition_range{p, range.from, range.until});
  }
  reader.read(plan.topics.source, source, [&](record&& r) {
    audit.source_record(r);
    return true;
  });
  read_whole(reader, plan.topics.receipts, [&](record&& r) { audit.receipt_record(r); });
  for (const auto& tier : plan.topics.tiers) {
    read_waiting(reader, at, cfg.kafka.group_id, tier.topic, o.timeout, audit);
  }
  const auto ledger_topic = redrive::default_ledger_topic(plan.topics.dlq);
  redrive::ledger ledger;
  if (const auto n = partitions_if_any(reader, ledger_topic)) {
    ledger = redrive::load_ledger(reader, ledger_topic, *n);
  }
  read_whole(reader, plan.topics.dlq, [&](record&& r) {
    audit.dlq_record(r, ledger.contains(redrive::ledger_key(r.position())));
  });

  return print_audit(audit, o.json) == 0 ? 0 : exit_unaccounted;
}

}  // namespace

int run_audit(const courier_config& cfg, const audit_options& options) {
  const auto plan = plan_of(cfg, options);
  if (!plan) {
    return exit_usage;
  }
  try {
    return audit_route(cfg, *plan, options);
  } catch (const missing_topic& e) {
    std::fprintf(stderr, "courier audit: %s\n", e.what());
    return exit_usage;
  } catch (const std::exception& e) {
    // A Kafka error, or anything else that ended the read: not a verdict about the records, so
    // never exit 1.
    std::fprintf(stderr, "courier audit: %s\n", e.what());
    return exit_kafka;
  }
}

}  // namespace courier::app
