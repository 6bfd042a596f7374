#include "tests/core/http/held_lookups.hpp"

#include <dlfcn.h>
#include <netdb.h>

#include <condition_variable>
#include <mutex>
#include <string_view>

namespace courier::http::testing::held_lookups {
namespace {

std::mutex mutex;
std::condition_variable changed;
bool held_now = false;
std::size_t waiting = 0;

}  // namespace

void hold() {
  const std::lock_guard<std::mutex> lock(mutex);
  held_now = true;
}

void release() {
  const std::lock_guard<std::mutex> lock(mutex);
  held_now = false;
  changed.notify_all();
}

bool wait_until_waiting(std::size_t count, std::chrono::milliseconds within) {
  std::unique_lock<std::mutex> lock(mutex);
  return changed.wait_for(lock, within, [count] { return waiting >= count; });
}

}  // namespace courier::http::testing::held_lookups

extern "C" int getaddrinfo(const char* node, const char* service, const struct addrinfo* hints,
                           struct addrinfo** res) {
  namespace held = courier::http::testing::held_lookups;
  using lookup = int (*)(const char*, const char*, const struct addrinfo*, struct addrinfo**);
  // The next definition after this executable's: libc's, or a sanitizer's interceptor of it.
  static const auto next = reinterpret_cast<lookup>(dlsym(RTLD_NEXT, "getaddrinfo"));
  if (node == nullptr || std::string_view{node} != held::host) {
    return next(node, service, hints, res);
  }
  {
    std::unique_lock<std::mutex> lock(held::mutex);
    ++held::waiting;
    held::changed.notify_all();
    held::changed.wait_for(lock, std::chrono::minutes(1), [] { return !held::held_now; });
    --held::waiting;
  }
  return next("127.0.0.1", service, hints, res);
}
