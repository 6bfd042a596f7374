#pragma once

#include "core/config/config.hpp"
#include "core/http/client.hpp"
#include "core/http/tls_context.hpp"
#include "core/kafka/consumer.hpp"

namespace courier::topology {

// What can be checked before anything starts, beyond the config's own validation (which
// cannot know librdkafka or the HTTP client): every `kafka.properties` entry is applied to a
// librdkafka configuration (a property courier sets itself, or a number librdkafka would misread,
// is refused), every route's URL is parsed as the HTTP client will parse it, and for an https://
// URL the route's TLS context is built (CA file, client certificate and key loaded), the consumer
// and producer are created once from their whole property sets (some properties librdkafka only
// refuses together), and no two routes consume one topic. Throws config_error naming the first
// key that cannot work ("routes[0].tls.ca_file"), so `courier run` and `topics ensure` exit 2
// before a thread or a connection.
void check_before_start(const courier_config& cfg);

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

// A route's tls block as the HTTP client takes it.
http::tls_settings tls_settings_of(const tls_config& tls);

// A route's HTTP client as its http, SSRF guard and tls blocks say: its deliveries, and its
// token endpoint's requests (with fewer connections).
http::client_settings client_settings_of(const route_config& r);

}  // namespace courier::topology
