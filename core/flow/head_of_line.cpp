#include "core/flow/head_of_line.hpp"

namespace courier {

head_of_line_guard::head_of_line_guard(std::size_t max_records) : max_records_(max_records) {}

std::optional<std::int64_t> head_of_line_guard::check(const offset_tracker& t) {
  const auto head = t.head();
  const auto last = t.last_tracked();
  if (max_records_ == 0 || !head || !last) {
    return std::nullopt;
  }
  const auto held_back = static_cast<std::uint64_t>(*last - *head + 1);
  if (held_back <= max_records_ || reported_ == head) {
    return std::nullopt;
  }
  reported_ = head;
  return head;
}

}  // namespace courier
