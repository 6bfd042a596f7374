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

}  // namespace courier::topology
