#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace courier {

// Whether a route keeps the order of a key's records (routes[].ordering.mode).
enum class ordering_mode : std::uint8_t {
  none,  // "none": records are attempted as they come, a retry tier lets later ones pass
  key,   // "key": a source partition's records of one Kafka key reach the partner in offset order
};

// What happens to the records that wait behind a dead-lettered one (ordering.on_dead_letter).
enum class dead_letter_followers : std::uint8_t {
  release,  // "release": they are delivered; the DLQ record names them
  park,     // "park": they go to the DLQ behind it, so that redrive returns them in order
};

std::string_view to_string(ordering_mode m);
std::string_view to_string(dead_letter_followers f);

// routes[].ordering: the mode and the bounds of what waits for order, per source partition.
struct key_ordering {
  ordering_mode mode = ordering_mode::none;
  dead_letter_followers on_dead_letter = dead_letter_followers::release;
  std::size_t max_parked_keys = 10000;  // keys with a record in a tier, per source partition
  std::size_t max_followers = 1000;     // records held behind one key's earlier one
};

}  // namespace courier
