#include "topology/tier_scan.hpp"

#include <algorithm>
#include <utility>

#include "core/kafka/range_reader.hpp"

namespace courier::topology {

actors::tier_scan range_reader_tier_scan(kafka::cluster at) {
  return [at = std::move(at)](const std::vector<assigned_partition>& tiers,
                              const std::function<void(record &&)>& on_record) {
    kafka::range_reader reader{at, tier_scan_stall_timeout};
    for (const auto& a : tiers) {
      auto range = reader.range_of(a.partition.topic, a.partition.partition);
      if (a.committed) {
        range.low = std::max(range.low, *a.committed);
      }
      reader.read(a.partition.topic, {range}, [&](record&& r) {
        on_record(std::move(r));
        return true;
      });
    }
  };
}

}  // namespace courier::topology
