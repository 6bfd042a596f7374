#pragma once

// Reading the actions a core state machine returned (attempt_policy, onward_queue): each is a
// std::vector of a std::variant of action structs.

#include <variant>
#include <vector>

#include <gtest/gtest.h>

namespace courier::testing {

// Every action of type T in `todo`, in order.
template <class T, class Actions>
std::vector<T> all_of(const Actions& todo) {
  std::vector<T> out;
  for (const auto& a : todo) {
    if (const auto* x = std::get_if<T>(&a)) {
      out.push_back(*x);
    }
  }
  return out;
}

template <class T, class Actions>
bool has(const Actions& todo) {
  return !all_of<T>(todo).empty();
}

// The one action of type T in `todo`; fails the test if there is not exactly one.
template <class T, class Actions>
T only(const Actions& todo) {
  const auto found = all_of<T>(todo);
  EXPECT_EQ(found.size(), 1U);
  return found.empty() ? T{} : found.front();
}

}  // namespace courier::testing
