#pragma once

#include "core/config/config.hpp"
#include "core/http/tls_context.hpp"

namespace courier::topology {

// What can be checked before anything starts, beyond the config's own validation (which
// cannot know librdkafka or the HTTP client): every `kafka.properties` entry is applied to a
// librdkafka configuration, every route's URL is parsed as the HTTP client will parse it, and
// for an https:// URL the route's TLS context is built (CA file, client certificate and key
// loaded). Throws config_error naming the first key that cannot work
// ("routes[0].tls.ca_file"), so `courier run` and `topics ensure` exit 2 before a thread or a
// connection.
void check_before_start(const courier_config& cfg);

// A route's tls block as the HTTP client takes it.
http::tls_settings tls_settings_of(const tls_config& tls);

}  // namespace courier::topology
