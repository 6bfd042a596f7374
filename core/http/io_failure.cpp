#include "core/http/io_failure.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <typeinfo>
#include <utility>

namespace courier::http {
namespace {

std::mutex& handler_mutex() {
  static std::mutex m;
  return m;
}

io_failure_handler& installed() {
  static io_failure_handler h;
  return h;
}

[[noreturn]] void exit_at_once(const char* what) {
  std::fprintf(stderr, "courier: a handler on an io thread threw (%s); exiting with code 1\n",
               what);
  std::fflush(nullptr);
  std::_Exit(1);
}

}  // namespace

io_failure_handler set_io_failure_handler(io_failure_handler handler) {
  const std::lock_guard<std::mutex> lock{handler_mutex()};
  return std::exchange(installed(), std::move(handler));
}

std::string describe_current_exception() {
  try {
    throw;
  } catch (const std::exception& e) {
    return std::string{typeid(e).name()} + ": " + e.what();
  } catch (...) {
    return "an exception of unknown type";
  }
}

void report_io_failure() {
  // Under std::bad_alloc, describing and handling may fail for want of memory as well: then
  // the process ends at once, with what can be said without allocating.
  try {
    const std::string what = describe_current_exception();
    io_failure_handler handler;
    {
      const std::lock_guard<std::mutex> lock{handler_mutex()};
      handler = installed();
    }
    if (!handler) {
      exit_at_once(what.c_str());
    }
    handler(what);
  } catch (const std::bad_alloc&) {
    exit_at_once("std::bad_alloc, and no memory left to report it");
  } catch (...) {
    exit_at_once("its report failed too");
  }
}

}  // namespace courier::http
