#include "core/log/event_sampler.hpp"

namespace courier::log {

event_sampler::event_sampler(std::size_t limit, clock::duration window)
    : limit_(limit), window_(window) {}

event_sampler::verdict event_sampler::admit(const std::string& route, const std::string& event,
                                            clock::time_point now) {
  auto [it, fresh] = keys_.try_emplace({route, event});
  auto& k = it->second;
  if (fresh || now - k.window_start >= window_) {
    k.window_start = now;
    k.logged = 0;
  }
  if (k.logged >= limit_) {
    ++k.suppressed;
    return verdict{false, 0, k.suppressed == 1};
  }
  ++k.logged;
  verdict v{true, k.suppressed};
  k.suppressed = 0;
  return v;
}

std::vector<event_sampler::held_back> event_sampler::flush(clock::time_point now) {
  std::vector<held_back> out;
  for (auto& [key, k] : keys_) {
    if (k.suppressed > 0 && now - k.window_start >= window_) {
      out.push_back(held_back{key.first, key.second, k.suppressed});
      k.suppressed = 0;
    }
  }
  return out;
}

}  // namespace courier::log
