#include "core/redrive/stats.hpp"

namespace courier::redrive {

std::size_t age_bucket(std::int64_t age_ms) {
  constexpr std::int64_t hour = 3'600'000;
  if (age_ms < hour) {
    return 0;
  }
  if (age_ms < 24 * hour) {
    return 1;
  }
  if (age_ms < hour * 24 * 7) {
    return 2;
  }
  return 3;
}

void dlq_stats::add(const parked_record& r, bool is_redriven, std::int64_t now_ms) {
  ++total;
  redriven += is_redriven ? 1 : 0;
  malformed += r.problem ? 1 : 0;
  ++by_error_class[r.error_class.empty() ? "(none)" : r.error_class];
  ++by_origin[origin_of(r)];
  ++by_age[age_bucket(now_ms - r.failed_at_ms)];
  if (!oldest || r.failed_at_ms < oldest->failed_at_ms) {
    oldest = dated_record{r.coordinates, r.failed_at_ms};
  }
  if (!newest || r.failed_at_ms > newest->failed_at_ms) {
    newest = dated_record{r.coordinates, r.failed_at_ms};
  }
}

}  // namespace courier::redrive
