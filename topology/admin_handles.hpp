#pragma once

// What the admin plane gets of a running pipeline: its routes' metrics, consumers and
// auto-redrives, the retry router's counters and the supervised actors.

#include "admin/route_handle.hpp"
#include "topology/pipeline.hpp"

namespace courier::topology {

admin::service_handles admin_handles_of(const pipeline& p);

}  // namespace courier::topology
