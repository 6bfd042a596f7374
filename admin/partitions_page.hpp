#pragma once

// The per-partition part of /metrics and /state: accounting, pause reasons, commit points,
// high watermarks and lag, from the routes' partition boards (actors/partition_board.hpp).

#include <nlohmann/json_fwd.hpp>

#include "core/metrics/exposition.hpp"
#include "admin/snapshot.hpp"

namespace courier::admin {

// courier_partition_records_total{route,topic,partition,state}, courier_partition_in_flight,
// courier_consumer_lag, courier_committed_offset, courier_partition_high_watermark and
// courier_partitions_paused_by_reason{route,reason} (every reason, 0 when none).
void render_partition_metrics(metrics::exposition& e, const std::vector<route_snapshot>& routes);

// The route's "partitions" array for /state.
nlohmann::json partitions_json(const route_snapshot& r);

}  // namespace courier::admin
