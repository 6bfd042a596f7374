#include "core/model/delivery_end.hpp"

namespace courier {

std::string_view to_string(delivery_end e) {
  switch (e) {
    case delivery_end::delivered:
      return "delivered";
    case delivery_end::retried:
      return "retried";
    case delivery_end::dead_lettered:
      return "dead_lettered";
    case delivery_end::filtered:
      return "filtered";
  }
  return "unknown";
}

}  // namespace courier
