#pragma once

// courier::metrics — gauges declared once, as counters are (counter_table.hpp): an enum of the
// gauges, one table row per gauge (where /state shows it, its Prometheus family and help), and
// an array indexed by the enum. The writer stores into a gauge_array<E, atomic>, the admin
// plane loads it whole, and /metrics and /state are loops over the table, so a new gauge is one
// enumerator and one row (and its writer).

#include <array>
#include <cstddef>
#include <string_view>

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
  const auto& rows = gauge_table<E>::rows;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (static_cast<std::size_t>(rows[i].id) != i) {
      return false;
    }
  }
  return true;
}

// One value per gauge of E.
template <class E, class T>
class gauge_array {
 public:
  T& operator[](E e) { return values_[static_cast<std::size_t>(e)]; }
  const T& operator[](E e) const { return values_[static_cast<std::size_t>(e)]; }
  T& at_index(std::size_t i) { return values_[i]; }
  const T& at_index(std::size_t i) const { return values_[i]; }
  static constexpr std::size_t size() { return gauge_count<E>; }

 private:
  std::array<T, gauge_count<E>> values_{};
};

}  // namespace courier::metrics
