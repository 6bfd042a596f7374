#pragma once

// A record as the routing tests build one: on "orders", with the value, key and headers given.

#include <optional>
#include <string>
#include <utility>

#include "core/model/record.hpp"

namespace courier::routing {

inline record a_record(payload value, std::optional<std::string> key = std::nullopt,
                       header_list headers = {}) {
  record r;
  r.topic = "orders";
  r.value = std::move(value);
  r.key = std::move(key);
  r.headers = std::move(headers);
  return r;
}

}  // namespace courier::routing
