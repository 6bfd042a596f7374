#pragma once

// The config_error a callable throws, for the config tests; fails the test when it throws
// nothing.

#include <gtest/gtest.h>

#include "core/config/config.hpp"

namespace courier::testing {

template <class F>
config_error error_of(F&& f) {
  try {
    f();
  } catch (const config_error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a config_error";
  return config_error{"", ""};
}

}  // namespace courier::testing
