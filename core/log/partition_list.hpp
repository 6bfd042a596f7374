#pragma once

#include <string>
#include <vector>

#include "core/model/partition_id.hpp"

namespace courier::log {

// A partition list as a person reads it: one entry per topic, its partitions sorted,
// deduplicated and runs folded into ranges: {t[3], t[0], t[1], t[2], t[5], t[5]} ->
// {"t[0-3,5]"}. Topics in name order; empty for no partitions.
std::vector<std::string> compact_partition_list(std::vector<partition_id> partitions);

}  // namespace courier::log
