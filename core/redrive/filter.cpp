#include "core/redrive/filter.hpp"

#include <algorithm>
#include <string_view>

#include "core/retry/retry_headers.hpp"

namespace courier::redrive {

bool matches(const filter& f, const parked_record& r) {
  if (!f.error_classes.empty() && std::find(f.error_classes.begin(), f.error_classes.end(),
                                            r.error_class) == f.error_classes.end()) {
    return false;
  }
  if (f.origin_topic && r.origin_topic != f.origin_topic) {
    return false;
  }
  if (f.origin_partition && r.origin_partition != f.origin_partition) {
    return false;
  }
  if (f.since_ms && r.failed_at_ms < *f.since_ms) {
    return false;
  }
  if (f.until_ms && r.failed_at_ms >= *f.until_ms) {
    return false;
  }
  if (f.key && r.raw.key != f.key) {
    return false;
  }
  if (f.endpoint && find_header(r.raw.headers, endpoint_header) != std::string_view{*f.endpoint}) {
    return false;
  }
  return true;
}

}  // namespace courier::redrive
