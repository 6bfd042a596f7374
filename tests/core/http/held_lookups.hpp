#pragma once

#include <chrono>
#include <cstddef>

namespace courier::http::testing::held_lookups {

// A host name whose lookups the test holds: getaddrinfo is interposed in this test binary (a
// definition in the executable wins over libc's), and a lookup of `host` waits while the test
// holds lookups, at most a minute, then resolves to 127.0.0.1. Every other name is libc's.
// What it stands for: a DNS server that does not answer, whose lookup asio cannot cancel.
inline constexpr const char* host = "held-lookup.courier.test";

void hold();     // lookups of `host` wait from now on
void release();  // the waiting ones go on, and later ones do not wait
// True once `count` lookups of `host` are waiting, false if `within` passed first.
bool wait_until_waiting(std::size_t count, std::chrono::milliseconds within);

// Holds lookups for its lifetime: released however the test ends.
struct holding {
  holding() { hold(); }
  ~holding() { release(); }
  holding(const holding&) = delete;
  holding& operator=(const holding&) = delete;
};

}  // namespace courier::http::testing::held_lookups
