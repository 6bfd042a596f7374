// A route with several endpoints on librdkafka's mock cluster, each endpoint a real mock_webhook
// server on loopback (docs/endpoints.md): fan-out by filters on a header and a JSON field, with
// disjoint and overlapping filters; selection by a header naming the endpoint, an unknown name
// dead-lettered or skipped; one endpoint's outage parked in the retry tiers while the others
// deliver. Each says which record reached which receiver, once, and that every offset is
// committed.

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/kafka/producer.hpp"
#include "core/redrive/ledger.hpp"
#include "core/retry/retry_headers.hpp"
#include "core/routing/endpoint_fanout.hpp"
#include "demo/topic_reader.hpp"
#include "tests/integration/serving_admin.hpp"
#include "tests/integration/stand.hpp"
#include "tests/support/source_pauses.hpp"
#include "tests/support/http_get.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

constexpr int partitions = 2;

// A receiver of its own per endpoint, checking the route's signature.
struct receivers {
  std::map<std::string, std::unique_ptr<mock::server>> by_name;

  mock::server& add(const std::string& name) {
    mock::server_settings ws;
    ws.hmac_secret = test_secret();
    auto& r = by_name[name];
    r = std::make_unique<mock::server>(ws);
    r->start();
    return *r;
  }
  std::size_t delivered() const {
    std::size_t n = 0;
    for (const auto& [name, r] : by_name) {
      n += r->snapshot().ok;
    }
    return n;
  }
};

// Record i: partner ["acme", "zoom", "other"][i % 3] in the x-partner header, {"id": i, "type":
// "express" for odd i, else "standard"} as its body, to partition i % partitions; its
// Idempotency-Key is then "<topic>:<i % partitions>:<i / partitions>".
struct shipment {
  std::string partner;
  bool express = false;
  std::string key;
};

// `from`: the first i, for a batch after the first (n records before it, none between).
std::vector<shipment> produce_shipments(stand& s, std::size_t n, std::size_t from = 0) {
  static const char* const partners[] = {"acme", "zoom", "other"};
  kafka::producer p{s.cluster.bootstrap_servers()};
  std::vector<shipment> out;
  for (std::size_t i = from; i < from + n; ++i) {
    shipment sh{
        partners[i % 3], i % 2 == 1,
        s.topic + ":" + std::to_string(i % partitions) + ":" + std::to_string(i / partitions)};
    const nlohmann::json body{{"id", i}, {"type", sh.express ? "express" : "standard"}};
    p.produce(s.topic, static_cast<std::int32_t>(i % partitions), std::nullopt, body.dump(),
              header_list{{"x-partner", sh.partner}});
    out.push_back(std::move(sh));
  }
  p.flush(10s);
  s.seeded += n;
  return out;
}

nlohmann::json endpoint_json(const std::string& name, const mock::server& r,
                             nlohmann::json filter = nullptr) {
  nlohmann::json e{{"name", name}, {"url", r.url()}};
  if (!filter.is_null()) {
    e["filter"] = std::move(filter);
  }
  return e;
}

// The filter of the endpoint of one partner: its records' x-partner header names it.
nlohmann::json partner_is(const std::string& partner) {
  return {{"header", "x-partner"}, {"equals", partner}};
}

// Receivers acme and zoom, each the endpoint of its partner's records, zoom answering 503 to
// everything, on the stand's route with `extra` over it.
std::pair<mock::server*, mock::server*> acme_and_zoom_down(stand& s, receivers& rs,
                                                           const nlohmann::json& extra);

// The keys of `partner`'s records among `batches`.
std::set<std::string> keys_for(const std::string& partner,
                               std::initializer_list<const std::vector<shipment>*> batches) {
  std::set<std::string> out;
  for (const auto* batch : batches) {
    for (const auto& sh : *batch) {
      if (sh.partner == partner) {
        out.insert(sh.key);
      }
    }
  }
  return out;
}

// The stand's route with these endpoints in place of its url, read as the file would be read.
void use_endpoints(stand& s, const nlohmann::json& endpoints,
                   const nlohmann::json& extra = nlohmann::json::object()) {
  nlohmann::json route{{"name", "shipments"},
                       {"topic", s.topic},
                       {"hmac_secret", test_secret()},
                       {"allow_private_targets", true},
                       {"retry", {{"initial", "20ms"}, {"max", "200ms"}}},
                       {"retry_tiers", {"300ms", "600ms"}},
                       {"http", {{"timeout", "1s"}}},
                       {"breaker", {{"open_timeout", "500ms"}}},
                       {"endpoints", endpoints}};
  route.update(extra);
  const nlohmann::json doc{{"kafka", {{"brokers", s.cfg.kafka.brokers}}}, {"routes", {route}}};
  auto parsed = parse_config(doc);
  validate(parsed);
  s.cfg.routes = parsed.routes;
}

std::set<std::string> keys_of(const mock::server& r) { return delivered_keys(r); }

std::set<std::string> expected(const std::vector<shipment>& all, bool (*goes)(const shipment&)) {
  std::set<std::string> out;
  for (const auto& sh : all) {
    if (goes(sh)) {
      out.insert(sh.key);
    }
  }
  return out;
}

// The route's partition accounting, summed: consumed, delivered, filtered, ...
std::map<std::string, std::uint64_t> accounting(const actors::route_metrics& m) {
  std::map<std::string, std::uint64_t> sum;
  for (const auto& p : m.partitions.snapshot()) {
    const auto& a = p.accounting;
    sum["consumed"] += a.consumed;
    sum["delivered"] += a.delivered;
    sum["retried"] += a.retried;
    sum["dead_lettered"] += a.dead_lettered;
    sum["filtered"] += a.filtered;
    sum["released"] += a.released;
    sum["already_done"] += a.already_done;
    sum["in_flight"] += p.in_flight;
  }
  return sum;
}

void expect_identity(const std::map<std::string, std::uint64_t>& a) {
  EXPECT_EQ(a.at("consumed"), a.at("delivered") + a.at("retried") + a.at("dead_lettered") +
                                  a.at("filtered") + a.at("released") + a.at("already_done") +
                                  a.at("in_flight"));
}

std::pair<mock::server*, mock::server*> acme_and_zoom_down(stand& s, receivers& rs,
                                                           const nlohmann::json& extra) {
  auto& acme = rs.add("acme");
  auto& zoom = rs.add("zoom");
  zoom.set_chaos(mock::chaos{1.0, 0, 0ms, 0, false});  // 503 to everything
  use_endpoints(s,
                {endpoint_json("acme", acme, partner_is("acme")),
                 endpoint_json("zoom", zoom, partner_is("zoom"))},
                extra);
  return {&acme, &zoom};
}

// Runs the route until all `n` records are committed, stops it, and returns its partition
// accounting, the identity checked.
std::map<std::string, std::uint64_t> run_until_committed(stand& s, std::size_t n) {
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  EXPECT_TRUE(wait_until([&] { return s.committed_total() == static_cast<long long>(n); }, 60s))
      << "committed: " << s.committed_total();
  EXPECT_TRUE(s.wait_group_settled(m));
  p.stop();
  auto a = accounting(m);
  expect_identity(a);
  return a;
}

TEST(Endpoints, DisjointFiltersOnAHeaderSendEachReceiverExactlyItsRecordsAndFilterTheRest) {
  constexpr std::size_t n = 60;
  stand s{partitions};
  receivers rs;
  auto& acme = rs.add("acme");
  auto& zoom = rs.add("zoom");
  use_endpoints(s, {endpoint_json("acme", acme, partner_is("acme")),
                    endpoint_json("zoom", zoom, {{"header", "x-partner"}, {"in", {"zoom"}}})});
  const auto all = produce_shipments(s, n);
  const auto for_acme = expected(all, [](const shipment& sh) { return sh.partner == "acme"; });
  const auto for_zoom = expected(all, [](const shipment& sh) { return sh.partner == "zoom"; });

  const auto a = run_until_committed(s, n);

  EXPECT_EQ(keys_of(acme), for_acme);
  EXPECT_EQ(keys_of(zoom), for_zoom);
  EXPECT_EQ(acme.snapshot().ok, for_acme.size()) << "each record once";
  EXPECT_EQ(zoom.snapshot().ok, for_zoom.size()) << "each record once";
  EXPECT_EQ(a.at("filtered"), n - for_acme.size() - for_zoom.size())
      << "the records for neither partner are counted as filtered";
}

TEST(Endpoints, OverlappingFiltersOnAHeaderAndAJsonFieldDeliverARecordToEveryMatchOnce) {
  constexpr std::size_t n = 60;
  stand s{partitions};
  receivers rs;
  auto& acme = rs.add("acme");
  auto& zoom = rs.add("zoom");
  auto& express = rs.add("express");
  use_endpoints(s, {endpoint_json("acme", acme, partner_is("acme")),
                    endpoint_json("zoom", zoom, partner_is("zoom")),
                    endpoint_json("express", express, {{"json", "/type"}, {"equals", "express"}})});
  const auto all = produce_shipments(s, n);
  const auto for_acme = expected(all, [](const shipment& sh) { return sh.partner == "acme"; });
  const auto for_zoom = expected(all, [](const shipment& sh) { return sh.partner == "zoom"; });
  const auto for_express = expected(all, [](const shipment& sh) { return sh.express; });
  const auto for_none =
      expected(all, [](const shipment& sh) { return sh.partner == "other" && !sh.express; });

  const auto a = run_until_committed(s, n);

  EXPECT_EQ(keys_of(acme), for_acme);
  EXPECT_EQ(keys_of(zoom), for_zoom);
  EXPECT_EQ(keys_of(express), for_express);
  EXPECT_EQ(rs.delivered(), for_acme.size() + for_zoom.size() + for_express.size())
      << "each (record, endpoint) once";
  EXPECT_EQ(a.at("filtered"), for_none.size());
  EXPECT_EQ(a.at("delivered"), n - for_none.size());
}

TEST(Endpoints, SelectionByAHeaderDeliversToTheNamedEndpointAndDeadLettersAnUnknownName) {
  constexpr std::size_t n = 30;
  stand s{partitions};
  receivers rs;
  auto& acme = rs.add("acme");
  auto& zoom = rs.add("zoom");
  use_endpoints(s, {endpoint_json("acme", acme), endpoint_json("zoom", zoom)},
                {{"endpoint_from", {{"header", "x-partner"}}}});
  const auto all = produce_shipments(s, n);

  const auto a = run_until_committed(s, n);

  EXPECT_EQ(keys_of(acme), expected(all, [](const shipment& sh) { return sh.partner == "acme"; }));
  EXPECT_EQ(keys_of(zoom), expected(all, [](const shipment& sh) { return sh.partner == "zoom"; }));
  const auto others = expected(all, [](const shipment& sh) { return sh.partner == "other"; });
  const auto dlq = demo::read_topic(s.cfg.kafka.brokers, s.dlq, others.size(), 20s, fast_group());
  std::set<std::string> dead;
  for (const auto& r : dlq) {
    EXPECT_EQ(find_header(r.headers, error_class_header).value_or(""), "unknown_endpoint");
    EXPECT_EQ(find_header(r.headers, attempts_header).value_or(""), "0");
    dead.insert(std::string{find_header(r.headers, idempotency_key_header).value_or("")});
  }
  EXPECT_EQ(dead, others) << "each record that names no endpoint is in the DLQ once";
  EXPECT_EQ(a.at("dead_lettered"), others.size());
}

TEST(Endpoints, SelectionSkipsAnUnknownNameWhenSetAndCountsItFiltered) {
  constexpr std::size_t n = 30;
  stand s{partitions};
  receivers rs;
  auto& acme = rs.add("acme");
  use_endpoints(s, nlohmann::json::array({endpoint_json("acme", acme)}),
                {{"endpoint_from", {{"header", "x-partner"}}}, {"on_unknown_endpoint", "skip"}});
  const auto all = produce_shipments(s, n);

  const auto a = run_until_committed(s, n);

  const auto for_acme = expected(all, [](const shipment& sh) { return sh.partner == "acme"; });
  EXPECT_EQ(keys_of(acme), for_acme);
  EXPECT_EQ(a.at("filtered"), n - for_acme.size());
  EXPECT_EQ(a.at("dead_lettered"), 0U);
}

// One partner down: its breaker opens, its records wait in the last retry tier (not in the
// pool, holding the partition's commit point), the other partner's flow on, nothing pauses; once
// it is back every record of its arrives, once.
TEST(Endpoints, OnePartnersOutageIsParkedInTheTiersWhileTheOtherDeliversAndNothingIsLost) {
  constexpr std::size_t n = 60;
  stand s{partitions};
  receivers rs;
  auto [acme_at, zoom_at] =
      acme_and_zoom_down(s, rs,
                         {{"breaker", {{"open_timeout", "500ms"}, {"trip_after", 3}}},
                          {"retry", {{"initial", "20ms"}, {"max", "100ms"}, {"max_attempts", 2}}}});
  auto& acme = *acme_at;
  auto& zoom = *zoom_at;
  const auto all = produce_shipments(s, n);
  const auto for_acme = expected(all, [](const shipment& sh) { return sh.partner == "acme"; });
  const auto for_zoom = expected(all, [](const shipment& sh) { return sh.partner == "zoom"; });

  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  const auto& zoom_metrics = *p.routes().front().endpoints.at(1).metrics;
  ASSERT_TRUE(wait_until([&] { return zoom_metrics.breaker_state.load() == 1; }, 30s))
      << "zoom's breaker opens";
  ASSERT_TRUE(wait_until([&] { return acme.snapshot().ok >= for_acme.size(); }, 60s))
      << "acme delivered: " << acme.snapshot().ok;
  EXPECT_EQ(zoom.snapshot().ok, 0U);
  expect_no_source_partition_paused(m.partitions.snapshot(), s.topic);

  zoom.set_chaos(mock::chaos{});
  ASSERT_TRUE(wait_until([&] { return zoom.snapshot().ok >= for_zoom.size(); }, 60s))
      << "zoom delivered: " << zoom.snapshot().ok;
  ASSERT_TRUE(wait_until([&] { return s.committed_total() == static_cast<long long>(n); }, 30s))
      << "committed: " << s.committed_total();
  ASSERT_TRUE(s.wait_group_settled(m));
  p.stop();

  EXPECT_EQ(keys_of(acme), for_acme);
  EXPECT_EQ(keys_of(zoom), for_zoom) << "every record of the partner that was down, once";
  EXPECT_EQ(acme.snapshot().ok, for_acme.size());
  EXPECT_EQ(zoom.snapshot().ok, for_zoom.size());
  expect_identity(accounting(m));
}

// routes[].auto_redrive on a route with several endpoints: zoom's outage runs some of its
// records out of the tiers into the DLQ before its breaker opens (the rest wait in the last
// tier); once zoom is back and its breaker has been Closed for `after`, zoom's auto-redrive
// returns its DLQ records to the source, and they go to zoom alone: zoom gets each of its
// records once, acme nothing twice.
TEST(Endpoints, AutoRedriveFollowsEachEndpointsBreakerAndReturnsItsDlqRecordsToItAlone) {
  constexpr std::size_t n = 60;
  stand s{partitions};
  receivers rs;
  // 20 records of zoom's fail three times each (source, two tiers): the breaker opens at the
  // 50th failure in a row, after about 10 of them reached the DLQ.
  auto [acme_at, zoom_at] =
      acme_and_zoom_down(s, rs,
                         {{"breaker", {{"open_timeout", "500ms"}, {"trip_after", 50}}},
                          {"retry", {{"initial", "20ms"}, {"max", "100ms"}, {"max_attempts", 1}}},
                          {"auto_redrive", {{"after", "1s"}, {"lookback", "1m"}, {"rate", 1000}}}});
  auto& acme = *acme_at;
  auto& zoom = *zoom_at;
  // Redrive's ledger: the mock cluster cannot create a topic when redrive asks.
  s.cluster.create_topic(redrive::default_ledger_topic(s.dlq), 1);
  const auto all = produce_shipments(s, n);

  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& route = p.routes().front();
  const auto& m = *route.metrics;
  const auto& zoom_metrics = *route.endpoints.at(1).metrics;
  ASSERT_TRUE(wait_until([&] { return zoom_metrics.breaker_state.load() == 1; }, 60s))
      << "zoom's breaker opens";
  ASSERT_TRUE(wait_until(
      [&] { return zoom_metrics.deliveries[delivery_counter::dead_lettered].load() > 0; }, 30s))
      << "some of zoom's records reached the DLQ before its breaker opened";

  zoom.set_chaos(mock::chaos{});
  // Its breaker closes at the probe of a record that comes now: every earlier one is in the DLQ
  // or waits in a tier.
  const auto more = produce_shipments(s, 12, n);
  const auto for_zoom_all = keys_for("zoom", {&all, &more});
  ASSERT_TRUE(wait_until([&] { return zoom.snapshot().ok >= for_zoom_all.size(); }, 90s))
      << "zoom delivered: " << zoom.snapshot().ok << " of " << for_zoom_all.size();
  // Those that were in a tier attempt when it opened reached the DLQ after: all of them count.
  const auto dead_lettered = zoom_metrics.deliveries[delivery_counter::dead_lettered].load();
  EXPECT_TRUE(wait_until(
      [&] { return m.actors[actors::route_counter::auto_redrive_moved].load() == dead_lettered; },
      30s))
      << "zoom's auto-redrive returned exactly its " << dead_lettered << " DLQ records, moved "
      << m.actors[actors::route_counter::auto_redrive_moved].load();
  EXPECT_EQ(route.endpoints.at(0).metrics->deliveries[delivery_counter::dead_lettered].load(), 0U);
  ASSERT_TRUE(wait_until(
      [&] {
        return s.committed_total() == static_cast<long long>(n + more.size() + dead_lettered);
      },
      30s))
      << "committed: " << s.committed_total() << ", the redriven records on the source too";
  ASSERT_TRUE(s.wait_group_settled(m));
  {
    // The route's auto-redrive on the admin port answers with each endpoint's.
    const std::string token = "it-auto-redrive-token-5e1b";
    serving_admin admin_plane{sys, p, token};
    const auto got = http_request(admin_plane.port(), boost::beast::http::verb::get,
                                  "/routes/shipments/auto-redrive", "Bearer " + token);
    admin_plane.stop();
    ASSERT_EQ(got.status, 200) << got.body;
    const auto j = nlohmann::json::parse(got.body);
    EXPECT_EQ(j.at("endpoints").at("zoom").at("endpoint"), "zoom");
    EXPECT_EQ(j.at("endpoints").at("zoom").at("events"), 1);
    EXPECT_EQ(j.at("endpoints").at("acme").at("events"), 0) << "acme's breaker never opened";
  }
  p.stop();

  EXPECT_EQ(keys_of(zoom), for_zoom_all);
  EXPECT_EQ(zoom.snapshot().ok, for_zoom_all.size()) << "each of zoom's records once";
  const auto for_acme_all = keys_for("acme", {&all, &more});
  EXPECT_EQ(keys_of(acme), for_acme_all);
  EXPECT_EQ(acme.snapshot().ok, for_acme_all.size()) << "the redriven records never went to acme";
}

// POST /routes/<r>/endpoints/<e>/pause on the admin port: that endpoint's records wait in the
// tiers (it receives nothing) while the other's flow; /resume delivers every one of them, once.
TEST(Endpoints, AnOperatorPausesOneEndpointWhileTheOtherDeliversAndItsResumeDeliversItsRecords) {
  constexpr std::size_t n = 60;
  const std::string token = "it-endpoint-token-71aa";
  stand s{partitions};
  receivers rs;
  auto& acme = rs.add("acme");
  auto& zoom = rs.add("zoom");
  use_endpoints(s, {endpoint_json("acme", acme, partner_is("acme")),
                    endpoint_json("zoom", zoom, partner_is("zoom"))});
  s.cfg.admin.token = token;
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  serving_admin admin_plane{sys, p, s.cfg.admin.token};
  const auto port = admin_plane.port();
  const auto paused = http_post(port, "/routes/shipments/endpoints/zoom/pause", "Bearer " + token);
  ASSERT_EQ(paused.status, 200) << paused.body;
  EXPECT_EQ(http_post(port, "/routes/shipments/endpoints/nobody/pause", "Bearer " + token).status,
            404);
  const auto state = nlohmann::json::parse(http_get(port, "/state").body);
  EXPECT_EQ(state.at("routes").at(0).at("endpoints").at(1).at("paused"), "operator");

  const auto all = produce_shipments(s, n);
  const auto for_acme = expected(all, [](const shipment& sh) { return sh.partner == "acme"; });
  const auto for_zoom = expected(all, [](const shipment& sh) { return sh.partner == "zoom"; });
  const auto& m = *p.routes().front().metrics;
  ASSERT_TRUE(wait_until([&] { return acme.snapshot().ok >= for_acme.size(); }, 60s))
      << "acme delivered: " << acme.snapshot().ok;
  const auto& zoom_metrics = *p.routes().front().endpoints.at(1).metrics;
  ASSERT_TRUE(wait_until(
      [&] { return zoom_metrics.deliveries[delivery_counter::retried] >= for_zoom.size(); }, 30s))
      << "zoom's records wait in the tiers";
  EXPECT_EQ(zoom.snapshot().total, 0U) << "a paused endpoint is sent nothing";

  ASSERT_EQ(http_post(port, "/routes/shipments/endpoints/zoom/resume", "Bearer " + token).status,
            200);
  ASSERT_TRUE(wait_until([&] { return zoom.snapshot().ok >= for_zoom.size(); }, 60s))
      << "zoom delivered: " << zoom.snapshot().ok;
  ASSERT_TRUE(wait_until([&] { return s.committed_total() == static_cast<long long>(n); }, 30s))
      << "committed: " << s.committed_total();
  ASSERT_TRUE(s.wait_group_settled(m));
  admin_plane.stop();
  p.stop();
  EXPECT_EQ(keys_of(acme), for_acme);
  EXPECT_EQ(keys_of(zoom), for_zoom);
  EXPECT_EQ(zoom.snapshot().ok, for_zoom.size()) << "each record once";
  expect_identity(accounting(m));
}

// ordering "key" on a route that selects one endpoint per record: each endpoint keeps its own
// order of a key. Every key has records for both partners; zoom is down, so each of its keys
// parks behind a record in a tier, and acme's records of the same keys do not wait for them
// (under one order per route they would). Once zoom is back, its records of each key arrive in
// offset order, each once.
TEST(Endpoints, KeyOrderIsKeptPerEndpointSoOnePartnersParkedKeysHoldNoneOfTheOthersRecords) {
  constexpr std::size_t n = 120;
  constexpr std::size_t keys = 6;  // key j = i % 6 is in partition j % 2, as i % 2
  stand s{partitions};
  receivers rs;
  auto& acme = rs.add("acme");
  auto& zoom = rs.add("zoom");
  zoom.set_chaos(mock::chaos{1.0, 0, 0ms, 0, false});
  use_endpoints(s, {endpoint_json("acme", acme), endpoint_json("zoom", zoom)},
                {{"endpoint_from", {{"header", "x-partner"}}},
                 {"ordering", "key"},
                 {"breaker", {{"open_timeout", "500ms"}, {"trip_after", 3}}},
                 {"retry", {{"initial", "20ms"}, {"max", "100ms"}, {"max_attempts", 2}}}});
  // Record i: key ship-(i % 6), to acme when (i / 2) is even, else zoom: each key alternates.
  std::set<std::string> for_acme;
  std::set<std::string> for_zoom;
  std::map<std::string, std::string> key_of;  // Idempotency-Key -> Kafka key
  {
    kafka::producer producer{s.cluster.bootstrap_servers()};
    for (std::size_t i = 0; i < n; ++i) {
      const std::string partner = (i / 2) % 2 == 0 ? "acme" : "zoom";
      const std::string key = "ship-" + std::to_string(i % keys);
      const std::string at =
          s.topic + ":" + std::to_string(i % partitions) + ":" + std::to_string(i / partitions);
      (partner == "acme" ? for_acme : for_zoom).insert(at);
      key_of.emplace(at, key);
      producer.produce(s.topic, static_cast<std::int32_t>(i % partitions), key,
                       nlohmann::json{{"id", i}}.dump(), header_list{{"x-partner", partner}});
    }
    producer.flush(10s);
    s.seeded += n;
  }

  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  const auto& m = *p.routes().front().metrics;
  const auto& zoom_metrics = *p.routes().front().endpoints.at(1).metrics;
  ASSERT_TRUE(wait_until([&] { return zoom_metrics.breaker_state.load() == 1; }, 30s))
      << "zoom's breaker opens";
  ASSERT_TRUE(wait_until([&] { return acme.snapshot().ok >= for_acme.size(); }, 60s))
      << "acme delivered " << acme.snapshot().ok << " of " << for_acme.size()
      << ": its records of keys zoom parked must not wait for zoom";
  EXPECT_EQ(zoom.snapshot().ok, 0U);
  expect_no_source_partition_paused(m.partitions.snapshot(), s.topic);

  zoom.set_chaos(mock::chaos{});
  ASSERT_TRUE(wait_until([&] { return zoom.snapshot().ok >= for_zoom.size(); }, 60s))
      << "zoom delivered: " << zoom.snapshot().ok;
  ASSERT_TRUE(wait_until([&] { return s.committed_total() == static_cast<long long>(n); }, 30s))
      << "committed: " << s.committed_total();
  ASSERT_TRUE(s.wait_group_settled(m));
  p.stop();

  EXPECT_EQ(keys_of(acme), for_acme);
  EXPECT_EQ(keys_of(zoom), for_zoom) << "every record of the partner that was down";
  EXPECT_EQ(zoom.snapshot().ok, for_zoom.size()) << "each once";
  for (const auto* receiver : {&acme, &zoom}) {
    std::map<std::string, std::int64_t> last;  // per key, the offset of its last arrival
    for (const auto& a : receiver->arrivals()) {
      const auto offset = std::stoll(a.idempotency_key.substr(a.idempotency_key.rfind(':') + 1));
      auto [at, first] = last.emplace(key_of.at(a.idempotency_key), offset);
      EXPECT_TRUE(first || at->second < offset)
          << a.idempotency_key << " of " << at->first << " arrived after offset " << at->second;
      at->second = offset;
    }
  }
  expect_identity(accounting(m));
}

}  // namespace
}  // namespace courier::testing
