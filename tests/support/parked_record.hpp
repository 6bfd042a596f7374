#pragma once

#include "core/model/record.hpp"
#include "core/retry/retry_headers.hpp"

#include <cstdint>
#include <string>

namespace courier::testing {

// The headers courier's retry router writes on the DLQ copy of `original` when route `route`
// parks it in `dlq` after failure `f`, stamped at `now_ms`. Produce the copy to `dlq` with
// original's key and value and these headers.
inline header_list dlq_copy(const record& original, const std::string& route,
                            const std::string& dlq, const failure_info& f, std::int64_t now_ms) {
  destination dest;
  dest.what = destination::kind::dlq;
  dest.topic = dlq;
  return retry_headers(original, route, dest, f, now_ms);
}

}  // namespace courier::testing
