#pragma once

#include <cstdint>
#include <string>

#include "core/model/delivery_end.hpp"
#include "core/model/record_position.hpp"

namespace courier {

// How one record's delivery ended, as the delivery pool reports it to the record's consumer.
struct delivery_outcome {
  record_position record;
  delivery_end end = delivery_end::delivered;
  std::int32_t attempts = 0;  // all attempts, held ones included
  std::int32_t status = 0;    // the last answer's HTTP status (0: none)
  std::string error_class;    // why it moved on ("" when delivered)
};

}  // namespace courier
