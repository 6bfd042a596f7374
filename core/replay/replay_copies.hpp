#pragma once

// `courier replay` (docs/endpoints.md, "Replay"): the records of a time range of a route's source
// delivered again, to one endpoint or to the endpoints each is for. A replay never sends a record
// itself: it writes a copy of each to the route's first retry tier, due at once, carrying the
// record's idempotency key, its origin and the endpoint it is for, so the running service
// delivers it through that endpoint's limits and breaker, and a failed copy goes on through the
// tiers to the DLQ as any record. Pure: which copies a source record makes, with what headers,
// and the names (the run's id, each copy's ledger key) that make a second identical run write
// nothing.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/record.hpp"
#include "core/model/route_topics.hpp"
#include "core/retry/retry_headers.hpp"
#include "core/routing/endpoint_routing.hpp"

namespace courier::replay {

using courier::replay_id_header;  // on every copy (core/retry/retry_headers.hpp)

// What a run replays: the route, its endpoint (none: every endpoint each record is for), and
// the range of record timestamps [since, until).
struct replay_range {
  std::string route;
  std::optional<std::string> endpoint;
  std::int64_t since_ms = 0;
  std::optional<std::int64_t> until_ms;  // none: up to the high watermark when the run starts
};

// The run's id, "replay-" and 16 hex digits of a digest of the range: the same route, endpoint
// and range give the same id, so a second identical run finds the first one's ledger entries.
std::string replay_id(const replay_range& r);

// The ledger key of one copy: "<id>/<topic>:<partition>:<offset>/<endpoint>".
std::string ledger_key(std::string_view id, const record_position& at, std::string_view endpoint);

// The route a copy is made for.
struct replay_target {
  std::string route;
  route_topics topics;             // the copies go to topics.tiers.front()
  bool several_endpoints = false;  // copies name their endpoint (courier.endpoint)
};

// One copy of a source record, for one endpoint.
struct replay_copy {
  std::string endpoint;
  std::string ledger_key;
  record produce;  // topic = the first retry tier, the source's partition, key, value, headers
};

// The copies of one source record: one per endpoint `routing` sends it to (narrowed to
// `endpoint` when set; a record that names no endpoint makes none). Each carries the record's
// own headers without courier's provenance (core/retry/provenance), then its idempotency key,
// the route, its origin (this record), attempts 0, retry tier 0 due at `now_ms`, the replay id
// and, on a route with several endpoints, its endpoint. Throws std::invalid_argument when the
// route has no retry tier (nothing would deliver the copies).
std::vector<replay_copy> copies_of(const record& source, const routing::endpoint_routing& routing,
                                   const replay_target& target,
                                   const std::optional<std::string>& endpoint, std::string_view id,
                                   std::int64_t now_ms);

}  // namespace courier::replay
