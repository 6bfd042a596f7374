#pragma once

// Which of the admin listener's handler threads answers a request. The monitoring reads
// (/healthz, /readyz, /metrics) never queue behind an operator's command (a pause waits up to
// route_control_bound for the route's consumer), so a kubelet probe or a scrape is answered
// while a slow command is under way.

#include <string_view>

namespace courier::admin {

enum class admin_lane {
  monitoring,  // /healthz, /readyz, /metrics: bounded, read-only
  command,     // everything else: /state, route control, auto-redrive, unknown targets
};

// The lane of a request target (its query, if any, is ignored).
[[nodiscard]] admin_lane lane_of(std::string_view target);

}  // namespace courier::admin
