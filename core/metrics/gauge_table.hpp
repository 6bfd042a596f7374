#pragma once

// courier::metrics — gauges declared once, as counters are (counter_table.hpp): an enum of the
// gauges, one table row per gauge (where /state shows it, its Prometheus family and help), and
// an array indexed by the enum. The writer stores into a gauge_array<E, atomic>, the admin
// plane loads it whole, and /metrics and /state are loops over the table, so a new gauge is one
// enumerator and one row (and its writer).

#include <array>
#include <cstddef>
#include <string_view>

#include "core/metrics/enum_array.hpp"

namespace courier::metrics {

template <class E>
struct gauge_spec {
  E id;
  // Where /state shows it in the route's object, as a JSON pointer ("/rate_limit/waiting"; "":
  // not shown there).
  std::string_view state_pointer;
  std::string_view metric;  // the Prometheus family
  std::string_view help;
};

// Specialized next to each enum: `static constexpr std::array<gauge_spec<E>, N> rows`, in the
// enum's order (checked by gauges_are_in_order below).
template <class E>
struct gauge_table;

template <class E>
constexpr std::size_t gauge_count = gauge_table<E>::rows.size();

template <class E>
constexpr bool gauges_are_in_order() {
  return ids_in_order(gauge_table<E>::rows);
}

// One value per gauge of E.
template <class E, class T>
using gauge_array = enum_array<E, T, gauge_count<E>>;

}  // namespace courier::metrics
