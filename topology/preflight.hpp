#pragma once

#include "core/config/config.hpp"

namespace courier::topology {

// What can be checked before anything starts, beyond the config's own validation (which
// cannot know librdkafka or the HTTP client): every `kafka.properties` entry is applied to a
// librdkafka configuration, and every route's URL is parsed as the HTTP client will parse it,
// with the schemes the client can serve. Throws config_error naming the first key that cannot
// work, so `courier run` and `topics ensure` exit 2 before a thread or a connection.
void check_before_start(const courier_config& cfg);

}  // namespace courier::topology
