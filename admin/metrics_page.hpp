#pragma once

// GET /metrics: the Prometheus text exposition (format 0.0.4) of every route and the retry
// router.

#include <string>
#include <string_view>
#include <vector>

#include "admin/snapshot.hpp"

namespace courier::admin {

inline constexpr std::string_view prometheus_content_type = "text/plain; version=0.0.4";

// The exposition of every route plus courier_build_info{version="..."} 1. Every series exists
// from the start (value 0), so rate() and absent() work before the first record.
std::string render_metrics(const std::vector<route_snapshot>& routes,
                           std::string_view build_version, const router_snapshot& router = {});

}  // namespace courier::admin
