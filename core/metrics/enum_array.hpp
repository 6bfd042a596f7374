#pragma once

// One value per enumerator of a table's enum (counter_table.hpp, gauge_table.hpp), indexed by
// the enum; and the order check both tables make of their rows.

#include <array>
#include <cstddef>

namespace courier::metrics {

template <class E, class T, std::size_t N>
class enum_array {
 public:
  T& operator[](E e) { return values_[static_cast<std::size_t>(e)]; }
  const T& operator[](E e) const { return values_[static_cast<std::size_t>(e)]; }
  T& at_index(std::size_t i) { return values_[i]; }
  const T& at_index(std::size_t i) const { return values_[i]; }
  static constexpr std::size_t size() { return N; }

 private:
  std::array<T, N> values_{};
};

// Whether each row's id is its index: the rows are in the enum's order.
template <class Rows>
constexpr bool ids_in_order(const Rows& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (static_cast<std::size_t>(rows[i].id) != i) {
      return false;
    }
  }
  return true;
}

}  // namespace courier::metrics
