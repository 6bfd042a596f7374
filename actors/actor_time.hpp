#pragma once

#include <chrono>
#include <cstdint>

#include <caf/actor_clock.hpp>

namespace courier::actors {

// The one clock an actor gives the core classes it drives (due times, record timestamps,
// signatures, breaker changes): the wall clock, moved by how far the actor's clock ran ahead of
// the steady clock since the actor started. In production the actor's clock is the steady
// clock, so this is the wall clock, steps included (a signature's timestamp stays true after a
// VM resumes); on the deterministic coordinator of the tests it is virtual time, so the time
// the core sees and the actor's timers move together. An actor keeps one in its state, made
// when it starts (start()).
class actor_time {
 public:
  void start(caf::actor_clock::time_point actor_now) {
    actor_start_ = actor_now;
    steady_start_ = std::chrono::steady_clock::now();
  }

  [[nodiscard]] std::chrono::system_clock::time_point now(
    caf::actor_clock::time_point actor_now) const {
    const auto ahead =
      (actor_now - actor_start_) - (std::chrono::steady_clock::now() - steady_start_);
    return std::chrono::system_clock::now() +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(ahead);
  }

  // Unix time in milliseconds, the unit of Kafka record timestamps and retry due times.
  [[nodiscard]] std::int64_t now_ms(caf::actor_clock::time_point actor_now) const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now(actor_now).time_since_epoch())
      .count();
  }

 private:
  caf::actor_clock::time_point actor_start_{};
  std::chrono::steady_clock::time_point steady_start_{};
};

// The time of a stateful actor that keeps its actor_time in its state as `time`.
template <class Self>
std::chrono::system_clock::time_point now(Self* self) {
  return self->state.time.now(self->clock().now());
}

template <class Self>
std::int64_t now_ms(Self* self) {
  return self->state.time.now_ms(self->clock().now());
}

}  // namespace courier::actors
