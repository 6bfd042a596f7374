#pragma once

// An exception that escapes a handler on an io thread (std::bad_alloc from a hostile peer's
// bytes, or a bug) is never a silent std::terminate and never swallowed: the io thread catches
// it and reports it here, then goes on running its io_context so the other exchanges can end
// while the process stops. What "stops" means is the process's choice: `courier run` hands it to
// its supervisor (drain, commit, exit non-zero); without a handler installed, the report goes to
// stderr and the process exits with code 1 at once.

#include <functional>
#include <string>

namespace courier::http {

using io_failure_handler = std::function<void(const std::string& what)>;

// Installs the process's answer to an io thread's failure and returns the one it replaces; an
// empty handler restores the default (stderr, exit code 1). Called from any thread; the handler
// runs on the failing io thread.
io_failure_handler set_io_failure_handler(io_failure_handler handler);

// Called on an io thread inside a catch block: reports the exception in flight.
void report_io_failure();

// The exception in flight, described ("std::bad_alloc: std::bad_alloc"); only inside a catch.
std::string describe_current_exception();

}  // namespace courier::http
