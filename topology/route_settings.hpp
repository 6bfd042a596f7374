#pragma once

// The one translator: a route's configuration (core/config) into the settings each module and
// actor takes, declared by that module. Nothing else reads a route_config to build another
// module's settings; the modules below never see a route_config.

#include <chrono>
#include <string_view>

#include "actors/consumer_actor.hpp"
#include "actors/delivery_pool.hpp"
#include "core/config/config.hpp"
#include "core/delivery/attempt_policy.hpp"
#include "core/http/client.hpp"
#include "core/http/tls_context.hpp"
#include "core/kafka/consumer.hpp"

namespace courier::topology {

// The kafka block as a route's consumer takes it (the topics are the route's).
kafka::consumer_settings consumer_settings_of(const kafka_config& kafka);

// What a route's consumer runs with: the kafka block, the route's topics (source and retry
// tiers), and a `group.instance.id` made the route's own ("<id>-<route>"). With a route ordered
// by key anywhere in `cfg`, the group assigns with "range" (see ordered_group_assignor), and
// an ordered route's source and tiers are one member.
kafka::consumer_settings route_consumer_settings(const courier_config& cfg,
                                                 const route_config& route);

// The assignor a group with a route ordered by key uses: "range" gives partition N of a route's
// source and of each of its tiers (as many partitions each) to the same member, so the
// instance that delivers a source partition also holds the tier records its keys wait behind.
inline constexpr std::string_view ordered_group_assignor = "range";

// A route's consumer actor: its member's settings above, its core's bounds and ordering, its
// commit cadence, its drains. A route with a rate limit asks the cluster for its source's
// partition count (the quota is shared by partitions).
actors::consumer_actor_settings consumer_actor_settings_of(const courier_config& cfg,
                                                           const route_config& route,
                                                           std::chrono::milliseconds drain_timeout);

// A route's HTTP client as its http, SSRF guard and tls blocks say.
http::client_settings client_settings_of(const route_config& r);

// The HTTP client of a route's token endpoint (routes[].auth.oauth2.token_url): the route's
// SSRF guard (allow_private_targets), TLS verification (its tls block) and http.timeout, as
// its deliveries have them; two connections at most.
http::client_settings token_client_settings(const route_config& route);

// The route's signing schemes, secrets and Idempotency-Key form.
signing_settings signing_of(const route_config& route);

// The route's settings as the attempt policy takes them.
attempt_policy_settings attempt_policy_settings_of(const route_config& route);

// The route's delivery pool: its attempt policy's settings, its ordering, its answer gathering.
actors::delivery_pool_settings delivery_pool_settings_of(const route_config& route);

// The delivery pool of one endpoint of a route with several (its settings resolved over the
// route's, endpoints_of): as a route's, and while its breaker is Open (or it is paused, or has
// its max_in_flight share of records) its records wait in the route's last retry tier, not in
// the pool (attempt_policy_settings::park_while_open, max_pending).
actors::delivery_pool_settings endpoint_pool_settings_of(const route_endpoint& endpoint);

}  // namespace courier::topology
