#include "core/auth/refresh_schedule.hpp"

#include <algorithm>

namespace courier::auth {

std::chrono::milliseconds refresh_after(std::chrono::seconds lifetime) {
  using std::chrono::milliseconds;
  const milliseconds whole = lifetime;
  const milliseconds margin =
      std::min(std::max(whole / 10, milliseconds{std::chrono::seconds{5}}), whole / 2);
  return std::max(whole - margin, shortest_refresh);
}

std::chrono::milliseconds refresh_retry_after(std::size_t failures) {
  constexpr std::chrono::milliseconds first{1000};
  constexpr std::chrono::milliseconds longest{30000};
  std::chrono::milliseconds wait = first;
  for (std::size_t i = 1; i < failures && wait < longest; ++i) {
    wait *= 2;
  }
  return std::min(wait, longest);
}

}  // namespace courier::auth
