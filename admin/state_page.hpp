#pragma once

// GET /state: the routes' state as JSON.

#include <string>
#include <string_view>
#include <vector>

#include "admin/snapshot.hpp"

namespace courier::admin {

// /state: per route the breaker, in-flight, paused partitions, readiness and counters. Built
// from the snapshots only: no configuration value (and so no hmac_secret) can appear in it.
std::string render_state(const std::vector<route_snapshot>& routes, std::string_view build_version);

}  // namespace courier::admin
