#include "core/model/key_ordering.hpp"

namespace courier {

std::string_view to_string(ordering_mode m) {
  switch (m) {
    case ordering_mode::none:
      return "none";
    case ordering_mode::key:
      return "key";
  }
  return "unknown";
}

std::string_view to_string(dead_letter_followers f) {
  switch (f) {
    case dead_letter_followers::release:
      return "release";
    case dead_letter_followers::park:
      return "park";
  }
  return "unknown";
}

}  // namespace courier
