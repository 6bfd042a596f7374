#pragma once

#include <cstdint>

namespace courier {

// A delivery's name inside its route's delivery pool: the attempt policy gives one to every
// record it accepts, and every event about that record (a permit, an answer, a retry timer, an
// onward acknowledgement) carries it. A type of its own, so it is never mistaken for a
// generation, a count or an offset.
enum class delivery_id : std::uint64_t {};

constexpr std::uint64_t to_integer(delivery_id id) { return static_cast<std::uint64_t>(id); }

}  // namespace courier
