#pragma once

// courier::metrics — a state machine's counters declared once: an enum of the counters, one
// table row per counter (its name in /state, its Prometheus family, help and label), and an
// array indexed by the enum. The machine counts into a counter_array<E, uint64_t>, the route's
// metrics hold a counter_array<E, atomic>, and /metrics and /state are loops over the table, so
// a new counter is one enumerator and one row.

#include <array>
#include <cstddef>
#include <string_view>

#include "core/metrics/enum_array.hpp"

namespace courier::metrics {

// One counter. Rows of one family are adjacent; the first carries the family's help, and each
// gives its sample a label (label = label_value) that tells it from the others.
template <class E>
struct counter_spec {
  E id;
  std::string_view state_name;  // its key in /state's "counters" ("": not shown there)
  std::string_view metric;      // the Prometheus family, <name>_total
  std::string_view help;        // the family's help (the first row of a family)
  std::string_view label = {};  // for a family of several rows: the label that tells them apart
  std::string_view label_value = {};
  // What a count is in the family's unit (1e-6: the counter counts microseconds of a
  // *_seconds_total family).
  double scale = 1;
};

// Specialized next to each enum: `static constexpr std::array<counter_spec<E>, N> rows`, in
// the enum's order (checked by counters_are_in_order below).
template <class E>
struct counter_table;

template <class E>
constexpr std::size_t counter_count = counter_table<E>::rows.size();

template <class E>
constexpr bool counters_are_in_order() {
  const auto& rows = counter_table<E>::rows;
  if (!ids_in_order(rows)) {
    return false;
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    // A family's rows are adjacent: a family that ended does not come back.
    for (std::size_t j = 0; j + 1 < i; ++j) {
      if (rows[j].metric == rows[i].metric && rows[i - 1].metric != rows[i].metric) {
        return false;
      }
    }
  }
  return true;
}

// One value per counter of E.
template <class E, class T>
using counter_array = enum_array<E, T, counter_count<E>>;

}  // namespace courier::metrics
