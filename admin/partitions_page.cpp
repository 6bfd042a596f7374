#include "admin/partitions_page.hpp"

#include <algorithm>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/flow/partition_pauses.hpp"
#include "core/time/civil_date.hpp"

namespace courier::admin {
namespace {

using metrics::family_type;

metrics::labels partition_labels(const route_snapshot& r, const actors::partition_report& p) {
  return {{"route", r.name}, {"topic", p.id.topic}, {"partition", std::to_string(p.id.partition)}};
}

// A gauge of librdkafka's statistics; a partition whose value is not known yet has no sample.
void position_gauge(metrics::exposition& e, const std::vector<route_snapshot>& routes,
                    std::string_view name, std::string_view help,
                    std::int64_t actors::partition_report::*field) {
  e.family(name, help, family_type::gauge);
  for (const auto& r : routes) {
    for (const auto& p : r.partitions) {
      if (p.assigned && p.*field >= 0) {
        e.sample(name, partition_labels(r, p), static_cast<double>(p.*field));
      }
    }
  }
}

constexpr pause_reason every_reason[] = {
    pause_reason::breaker,  pause_reason::backpressure,    pause_reason::retry_due,
    pause_reason::shutdown, pause_reason::produce_blocked, pause_reason::operator_request,
    pause_reason::ordering};

// A partition's records by state (the accounting identity).
void partition_records(metrics::exposition& e, const std::vector<route_snapshot>& routes) {
  constexpr std::string_view records = "courier_partition_records_total";
  e.family(records,
           "A partition's records by state: consumed = delivered + retried + dead_lettered + "
           "filtered (for none of the route's endpoints) + released (revoked while in flight) + "
           "already_done (done by the committed offset map, "
           "not delivered again) + courier_partition_in_flight.",
           family_type::counter);
  for (const auto& r : routes) {
    for (const auto& p : r.partitions) {
      auto l = partition_labels(r, p);
      const auto& a = p.accounting;
      for (const auto& [state, value] :
           {std::pair<const char*, std::uint64_t>{"consumed", a.consumed},
            {"delivered", a.delivered},
            {"retried", a.retried},
            {"dead_lettered", a.dead_lettered},
            {"filtered", a.filtered},
            {"released", a.released},
            {"already_done", a.already_done}}) {
        auto with_state = l;
        with_state.emplace_back("state", state);
        e.sample(records, with_state, value);
      }
    }
  }
}

// routes[].ordering "key": the parked keys and followers of each ordered partition.
void key_order_gauges(metrics::exposition& e, const std::vector<route_snapshot>& routes) {
  e.family("courier_partition_parked_keys",
           "routes[].ordering \"key\": a source partition's keys waiting behind a record in a "
           "retry tier.",
           family_type::gauge);
  e.family("courier_partition_followers",
           "routes[].ordering \"key\": records held behind an earlier record of their key.",
           family_type::gauge);
  e.family("courier_partition_oldest_parked_timestamp_seconds",
           "routes[].ordering \"key\": since when the longest-parked key of the partition "
           "waits (Unix time; no sample while none is parked).",
           family_type::gauge);
  for (const auto& r : routes) {
    for (const auto& p : r.partitions) {
      if (!p.assigned || !p.ordered) {
        continue;
      }
      const auto l = partition_labels(r, p);
      e.sample("courier_partition_parked_keys", l, static_cast<double>(p.parked_keys));
      e.sample("courier_partition_followers", l, static_cast<double>(p.followers));
      if (p.oldest_parked_since_ms) {
        e.sample("courier_partition_oldest_parked_timestamp_seconds", l,
                 static_cast<double>(*p.oldest_parked_since_ms) / 1000.0);
      }
    }
  }
}

// Assigned partitions paused now, by reason, per route.
void paused_by_reason(metrics::exposition& e, const std::vector<route_snapshot>& routes) {
  constexpr std::string_view by_reason = "courier_partitions_paused_by_reason";
  e.family(by_reason, "Assigned partitions paused now, by reason (a partition may have several).",
           family_type::gauge);
  for (const auto& r : routes) {
    std::map<std::string, int> count;
    for (const auto& p : r.partitions) {
      for (const auto reason : p.reasons) {
        ++count[to_string(reason)];
      }
    }
    for (const auto reason : every_reason) {
      const auto name = to_string(reason);
      e.sample(by_reason, {{"route", r.name}, {"reason", name}}, static_cast<double>(count[name]));
    }
  }
}

// How long the oldest record of each source partition not yet delivered or handed on waits, by
// its Kafka timestamp: 0 while nothing is in flight and nothing lags; no sample while nothing is
// in flight but records lag (their age is not known before they are fetched).
void oldest_undelivered(metrics::exposition& e, const std::vector<route_snapshot>& routes) {
  constexpr std::string_view name = "courier_oldest_undelivered_age_seconds";
  e.family(name,
           "Age of the source partition's oldest record not yet delivered or handed on (a retry "
           "tier, the DLQ), by its Kafka timestamp; 0 while it has none and no lag.",
           family_type::gauge);
  for (const auto& r : routes) {
    for (const auto& p : r.partitions) {
      if (!p.assigned || p.id.topic != r.topic) {
        continue;
      }
      if (p.oldest_undelivered_ms) {
        const auto age_ms = std::max<std::int64_t>(0, r.taken_at_ms - *p.oldest_undelivered_ms);
        e.sample(name, partition_labels(r, p), static_cast<double>(age_ms) / 1000.0);
      } else if (p.lag == 0) {
        e.sample(name, partition_labels(r, p), 0.0);
      }
    }
  }
}

// Whether the route cannot deliver now for a reason more instances would not change: an
// operator's pause, or its (every) endpoint refused by the SSRF guard or gone (410).
bool held_whole(const route_snapshot& r) {
  const auto held = [](const route_snapshot& e) { return e.endpoint_blocked || e.endpoint_gone; };
  if (r.operator_paused) {
    return true;
  }
  return r.endpoints.empty() ? held(r) : std::all_of(r.endpoints.begin(), r.endpoints.end(), held);
}

// The lag an autoscaler may act on: the route's source partitions that lag and are not held
// by the breaker or an operator (more instances would not deliver those sooner, and each join
// is a rebalance). One sample per route and instance: each reports the partitions it holds.
void scalable_lag(metrics::exposition& e, const std::vector<route_snapshot>& routes) {
  constexpr std::string_view name = "courier_scalable_lag";
  e.family(name,
           "Records behind on this instance's source partitions of the route that are not held "
           "by the breaker, an operator's pause, a 410 or an SSRF refusal: the lag to scale on "
           "(sum over instances).",
           family_type::gauge);
  for (const auto& r : routes) {
    std::int64_t lag = 0;
    if (!held_whole(r)) {
      for (const auto& p : r.partitions) {
        const bool held = std::any_of(p.reasons.begin(), p.reasons.end(), [](pause_reason why) {
          return why == pause_reason::breaker || why == pause_reason::operator_request;
        });
        if (p.assigned && p.id.topic == r.topic && p.lag > 0 && !held) {
          lag += p.lag;
        }
      }
    }
    e.sample(name, {{"route", r.name}}, static_cast<double>(lag));
  }
}

nlohmann::json reason_names(const std::vector<pause_reason>& reasons) {
  auto names = nlohmann::json::array();
  for (const auto reason : reasons) {
    names.push_back(to_string(reason));
  }
  return names;
}

}  // namespace

void render_partition_metrics(metrics::exposition& e, const std::vector<route_snapshot>& routes) {
  partition_records(e, routes);
  e.family("courier_partition_in_flight", "A partition's records in flight now.",
           family_type::gauge);
  for (const auto& r : routes) {
    for (const auto& p : r.partitions) {
      e.sample("courier_partition_in_flight", partition_labels(r, p),
               static_cast<double>(p.in_flight));
    }
  }
  position_gauge(e, routes, "courier_consumer_lag",
                 "Records between the group's committed offset and the high watermark "
                 "(librdkafka's consumer_lag).",
                 &actors::partition_report::lag);
  position_gauge(e, routes, "courier_committed_offset", "The group's committed offset.",
                 &actors::partition_report::committed);
  position_gauge(e, routes, "courier_partition_high_watermark",
                 "The partition's high watermark (the offset of the next record written).",
                 &actors::partition_report::high_watermark);
  key_order_gauges(e, routes);
  paused_by_reason(e, routes);
  scalable_lag(e, routes);
  oldest_undelivered(e, routes);
}

nlohmann::json partitions_json(const route_snapshot& r) {
  auto out = nlohmann::json::array();
  for (const auto& p : r.partitions) {
    const auto& a = p.accounting;
    auto j = nlohmann::json{
        {"topic", p.id.topic},
        {"partition", p.id.partition},
        {"assigned", p.assigned},
        {"in_flight", p.in_flight},
        {"held_until_due", p.held_until_due},
        {"accounting",
         {{"consumed", a.consumed},
          {"delivered", a.delivered},
          {"retried", a.retried},
          {"dead_lettered", a.dead_lettered},
          {"filtered", a.filtered},
          {"released", a.released},
          {"already_done", a.already_done}}},
        {"paused", !p.reasons.empty()},
        {"paused_reasons", reason_names(p.reasons)},
    };
    if (p.paused_since_ms) {
      j["paused_since"] = format_rfc3339_ms(*p.paused_since_ms);
    }
    if (p.oldest_undelivered_ms) {
      j["oldest_undelivered_age_ms"] =
          std::max<std::int64_t>(0, r.taken_at_ms - *p.oldest_undelivered_ms);
    }
    auto known = [&j](const char* key, std::int64_t v) {
      j[key] = v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr);
    };
    if (p.ordered) {
      j["ordering"] = {
          {"parked_keys", p.parked_keys},
          {"followers", p.followers},
          {"oldest_parked_since", p.oldest_parked_since_ms
                                      ? nlohmann::json(format_rfc3339_ms(*p.oldest_parked_since_ms))
                                      : nlohmann::json(nullptr)}};
    }
    known("committed_offset", p.committed);
    known("high_watermark", p.high_watermark);
    known("lag", p.lag);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace courier::admin
