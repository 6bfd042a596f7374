#include "topology/runtime.hpp"

#include <stdexcept>
#include <utility>

#include "actors/system_config.hpp"
#include "topology/admin_handles.hpp"

namespace courier::topology {

namespace {

caf::actor_system_config& configured(caf::actor_system_config& cfg) {
  actors::configure_actor_system(cfg);
  return cfg;
}

}  // namespace

runtime::runtime(const courier_config& cfg, std::optional<admin::admin_listener>& admin)
    : cfg_(cfg), system_(configured(system_config_)), admin_(admin) {}

runtime::~runtime() { stop_admin(); }

caf::actor runtime::start(pipeline_options options,
                          std::map<std::string, auth::credential> credentials) {
  if (pipeline_) {
    throw std::logic_error("runtime::start called twice");
  }
  pipeline_.emplace(system_, cfg_, options, std::move(credentials));
  supervisor_.emplace(system_, *pipeline_);
  if (admin_) {
    endpoints_.emplace(system_, admin_handles_of(*pipeline_), cfg_.admin.token);
    admin_->serve(
        [&e = *endpoints_](const admin::admin_request& request) { return e.handle(request); });
  }
  return supervisor_->handle();
}

const stop_report& runtime::stop() {
  if (endpoints_) {
    endpoints_->set_stopping();  // /readyz: 503 while draining
  }
  return pipeline_->stop();
}

void runtime::stop_admin() {
  if (admin_) {
    admin_->stop();
  }
}

}  // namespace courier::topology
