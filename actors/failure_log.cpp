#include "actors/failure_log.hpp"

#include <exception>
#include <utility>

#include "core/log/json_log.hpp"

namespace courier::actors {

void log_failures(caf::scheduled_actor* self, std::string actor, std::string route) {
  self->set_exception_handler([actor = std::move(actor), route = std::move(route)](
                                caf::scheduled_actor*, std::exception_ptr& eptr) -> caf::error {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(eptr);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
      // `what` says it: nothing more is known about a non-std exception.
    }
    log::error("actor failed", {{"actor", actor}, {"route", route}, {"error", what}});
    return caf::make_error(caf::exit_reason::unhandled_exception);
  });
}

}  // namespace courier::actors
