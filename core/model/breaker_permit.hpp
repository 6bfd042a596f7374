#pragma once

#include <cstdint>

namespace courier {

// A route breaker's answer to "may this delivery attempt go out?": what the breaker actor
// replies and the attempt policy takes.
struct breaker_permit {
  bool granted = false;
  bool probe = false;  // granted in Half-Open: this delivery decides the breaker's next state
  std::uint64_t generation = 0;  // the breaker's; the attempt's outcome carries it back
};

}  // namespace courier
