#include "admin/metrics_page.hpp"

#include <array>
#include <cstdint>
#include <string_view>

#include "core/metrics/exposition.hpp"
#include "admin/partitions_page.hpp"

namespace courier::admin {
namespace {

using metrics::exposition;
using metrics::family_type;

// A counter table's families, one sample per route and row.
template <class E>
void counters(exposition& e, const std::vector<route_snapshot>& routes,
              metrics::counter_array<E, std::uint64_t> route_snapshot::*table) {
  const auto& rows = metrics::counter_table<E>::rows;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    if (i == 0 || rows[i - 1].metric != row.metric) {
      e.family(row.metric, row.help, family_type::counter);
    }
    for (const auto& r : routes) {
      metrics::labels l{{"route", r.name}};
      if (!row.label.empty()) {
        l.emplace_back(std::string{row.label}, std::string{row.label_value});
      }
      const std::uint64_t n = (r.*table).at_index(i);
      if (row.scale == 1) {
        e.sample(row.metric, l, n);
      } else {
        e.sample(row.metric, l, static_cast<double>(n) * row.scale);
      }
    }
  }
}

// The route's gauge table (actors/route_gauges.hpp), then its gauges that are states, flags and
// shares rather than counts (flag_gauges): one family each, one sample per route.
struct flag_gauge {
  std::string_view metric;
  std::string_view help;
  double (*value)(const route_snapshot&);
};

constexpr std::array<flag_gauge, 6> flag_gauges{{
    {"courier_endpoint_blocked",
     "1 while the SSRF guard refuses the route's endpoint (records are held).",
     [](const route_snapshot& r) { return static_cast<double>(r.endpoint_blocked); }},
    {"courier_endpoint_gone",
     "1 while the route is flagged gone: a 410 and no 2xx since (the breaker stays open).",
     [](const route_snapshot& r) { return static_cast<double>(r.endpoint_gone); }},
    {"courier_breaker_state", "Circuit breaker state: 0 closed, 1 open, 2 half-open.",
     [](const route_snapshot& r) { return static_cast<double>(r.breaker_state); }},
    {"courier_rate_limit_requests_per_second",
     "This instance's share of the route's rate limit (routes[].rate_limit) in requests a second; "
     "0 when the route has none.",
     [](const route_snapshot& r) { return static_cast<double>(r.rate_limit); }},
    {"courier_consumer_assigned", "1 once the route's consumer got its first assignment.",
     [](const route_snapshot& r) { return static_cast<double>(r.assigned); }},
    {"courier_consumer_draining", "1 while the route's consumer drains.",
     [](const route_snapshot& r) { return static_cast<double>(r.draining); }},
}};

void gauges(exposition& e, const std::vector<route_snapshot>& routes) {
  const auto& table = metrics::gauge_table<actors::route_gauge>::rows;
  for (std::size_t i = 0; i < table.size(); ++i) {
    e.family(table[i].metric, table[i].help, family_type::gauge);
    for (const auto& r : routes) {
      e.sample(table[i].metric, {{"route", r.name}}, static_cast<double>(r.gauges.at_index(i)));
    }
  }
  for (const auto& g : flag_gauges) {
    e.family(g.metric, g.help, family_type::gauge);
    for (const auto& r : routes) {
      e.sample(g.metric, {{"route", r.name}}, g.value(r));
    }
  }
}

// A route with several endpoints: each endpoint's deliveries, attempts, breaker, in flight and
// quota share, labelled {route, endpoint} (the route's own series add them up).
void endpoint_families(exposition& e, const std::vector<route_snapshot>& routes) {
  const auto each = [&](std::string_view metric, std::string_view help, family_type type,
                        auto&& sample) {
    e.family(metric, help, type);
    for (const auto& r : routes) {
      for (const auto& ep : r.endpoints) {
        sample(metrics::labels{{"route", r.name}, {"endpoint", ep.name}}, ep);
      }
    }
  };
  each("courier_endpoint_deliveries_total",
       "A route's endpoint's deliveries by outcome (routes[].endpoints): delivered, retried "
       "(moved to a retry tier, parked there while its breaker is open included), dead_lettered.",
       family_type::counter, [&](const metrics::labels& l, const route_snapshot& ep) {
         for (const auto& [outcome, counter] :
              {std::pair{"delivered", delivery_counter::delivered},
               std::pair{"retried", delivery_counter::retried},
               std::pair{"dead_lettered", delivery_counter::dead_lettered}}) {
           auto with = l;
           with.emplace_back("outcome", outcome);
           e.sample("courier_endpoint_deliveries_total", with, ep.deliveries[counter]);
         }
       });
  each("courier_endpoint_attempts_total", "HTTP requests sent to a route's endpoint.",
       family_type::counter, [&](const metrics::labels& l, const route_snapshot& ep) {
         e.sample("courier_endpoint_attempts_total", l, ep.deliveries[delivery_counter::attempts]);
       });
  each("courier_endpoint_breaker_state",
       "A route's endpoint's circuit breaker: 0 closed, 1 open, 2 half-open.", family_type::gauge,
       [&](const metrics::labels& l, const route_snapshot& ep) {
         e.sample("courier_endpoint_breaker_state", l, static_cast<double>(ep.breaker_state));
       });
  each("courier_endpoint_paused",
       "1 while an operator paused a route's endpoint (POST /routes/<r>/endpoints/<e>/pause).",
       family_type::gauge, [&](const metrics::labels& l, const route_snapshot& ep) {
         e.sample("courier_endpoint_paused", l, std::uint64_t{ep.operator_paused ? 1U : 0U});
       });
  each("courier_endpoint_in_flight", "A route's endpoint's copies of records in flight.",
       family_type::gauge, [&](const metrics::labels& l, const route_snapshot& ep) {
         e.sample("courier_endpoint_in_flight", l,
                  static_cast<double>(ep.gauges[actors::route_gauge::in_flight]));
       });
  each("courier_endpoint_rate_limit_requests_per_second",
       "This instance's share of a route's endpoint's rate limit in requests a second; 0: none.",
       family_type::gauge, [&](const metrics::labels& l, const route_snapshot& ep) {
         e.sample("courier_endpoint_rate_limit_requests_per_second", l, ep.rate_limit);
       });
}

// Whose a histogram is on a route with several endpoints: its consumer's (one series for the
// route) or its endpoints' pools' (one series for each endpoint, labelled with its name).
enum class observed_by : std::uint8_t { consumer, pool };

// A histogram family, one series per route that has the histogram, or per endpoint.
void histogram(exposition& e, const std::vector<route_snapshot>& routes, std::string_view name,
               std::string_view help, const metrics::histogram* route_snapshot::*field,
               observed_by who) {
  e.family(name, help, family_type::histogram);
  for (const auto& r : routes) {
    switch (who) {
      case observed_by::pool:
        if (!r.endpoints.empty()) {
          for (const auto& ep : r.endpoints) {
            if (const auto* h = ep.*field) {
              h->render(e, name, {{"route", r.name}, {"endpoint", ep.name}});
            }
          }
          continue;
        }
        break;
      case observed_by::consumer:
        break;
    }
    if (const auto* h = r.*field) {
      h->render(e, name, {{"route", r.name}});
    }
  }
}

// The retry router's families (one router for every route).
void router_families(exposition& e, const router_snapshot& router) {
  e.family("courier_retry_records_produced_total",
           "Retry-tier and DLQ records the broker acknowledged.", family_type::counter);
  e.sample("courier_retry_records_produced_total", {}, router.produced);
  e.family("courier_retry_records_produced_by_destination_total",
           "Retry-tier and DLQ records the broker acknowledged, by destination topic and "
           "courier.error.class.",
           family_type::counter);
  for (const auto& [key, n] : router.produced_by) {
    e.sample("courier_retry_records_produced_by_destination_total",
             {{"topic", key.first}, {"error_class", key.second}}, n);
  }
  e.family("courier_retry_produce_failures_total",
           "Failed tries to write a retry-tier or DLQ record (each is tried again; its "
           "partition is held meanwhile).",
           family_type::counter);
  e.sample("courier_retry_produce_failures_total", {}, router.produce_failures);
  e.family("courier_retry_records_failing", "Retry-tier and DLQ records whose latest try failed.",
           family_type::gauge);
  e.sample("courier_retry_records_failing", {}, static_cast<double>(router.records_failing));
  e.family("courier_retry_producer_rebuilds_total",
           "Producer rebuilds after a fatal idempotent-producer error.", family_type::counter);
  e.sample("courier_retry_producer_rebuilds_total", {}, router.producer_rebuilds);
}

}  // namespace

std::string render_metrics(const std::vector<route_snapshot>& routes,
                           std::string_view build_version, const router_snapshot& router) {
  exposition e;
  router_families(e, router);
  counters(e, routes, &route_snapshot::consumer);
  counters(e, routes, &route_snapshot::deliveries);
  counters(e, routes, &route_snapshot::actors);
  gauges(e, routes);
  e.family("courier_route_paused",
           "1 while the route is paused as a whole, by reason (operator: POST "
           "/routes/<name>/pause until /resume).",
           family_type::gauge);
  for (const auto& r : routes) {
    e.sample("courier_route_paused", {{"route", r.name}, {"reason", "operator"}},
             std::uint64_t{r.operator_paused ? 1U : 0U});
  }
  render_partition_metrics(e, routes);
  endpoint_families(e, routes);
  histogram(e, routes, "courier_delivery_request_duration_seconds",
            "HTTP attempts by duration, from the request handed to the client to its answer.",
            &route_snapshot::request_seconds, observed_by::pool);
  histogram(e, routes, "courier_delivery_latency_seconds",
            "Delivered records by latency, from the record's Kafka timestamp to the webhook's 2xx "
            "(retry tiers included).",
            &route_snapshot::delivery_seconds, observed_by::pool);
  histogram(e, routes, "courier_consumer_fetch_latency_seconds",
            "Records taken from a route's source topics by the time from the record's Kafka "
            "timestamp to courier's poll (producer, broker, fetch and prefetch queue).",
            &route_snapshot::fetch_seconds, observed_by::consumer);
  e.family("courier_route_info",
           "A route's topics; the value is always 1 (alerts join it for the topic names).",
           family_type::gauge);
  for (const auto& r : routes) {
    e.sample("courier_route_info",
             {{"route", r.name}, {"topic", r.topic}, {"dlq_topic", r.dlq_topic}}, std::uint64_t{1});
  }
  e.family("courier_build_info", "courier's version; the value is always 1.", family_type::gauge);
  e.sample("courier_build_info", {{"version", std::string{build_version}}}, std::uint64_t{1});
  return e.text();
}

}  // namespace courier::admin
