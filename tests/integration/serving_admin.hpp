#pragma once

// The admin plane over a running pipeline, as `courier run` serves it: the admin endpoints
// (with the route commands' token, if any) on a loopback listener at a port the system picks.
// Stopped when it goes; stop() first where the pipeline stops before the end of the test.

#include <cstdint>
#include <string>

#include <caf/all.hpp>

#include "admin/endpoints.hpp"
#include "admin/listener.hpp"
#include "topology/admin_handles.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {

class serving_admin {
 public:
  serving_admin(caf::actor_system& sys, topology::pipeline& p, std::string token = {})
      : endpoints_{sys, topology::admin_handles_of(p), std::move(token)} {
    listener_.serve([this](const admin::admin_request& r) { return endpoints_.handle(r); });
  }

  [[nodiscard]] std::uint16_t port() const { return listener_.port(); }
  void stop() { listener_.stop(); }

 private:
  admin::admin_endpoints endpoints_;
  admin::admin_listener listener_{{"127.0.0.1", 0}};
};

}  // namespace courier::testing
