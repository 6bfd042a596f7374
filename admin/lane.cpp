#include "admin/lane.hpp"

namespace courier::admin {

admin_lane lane_of(std::string_view target) {
  const auto path = target.substr(0, target.find('?'));
  if (path == "/healthz" || path == "/readyz" || path == "/metrics") {
    return admin_lane::monitoring;
  }
  return admin_lane::command;
}

}  // namespace courier::admin
