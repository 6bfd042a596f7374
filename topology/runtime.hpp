#pragma once

#include <map>
#include <optional>
#include <string>

#include <caf/all.hpp>

#include "admin/endpoints.hpp"
#include "admin/listener.hpp"
#include "core/auth/credential.hpp"
#include "core/config/config.hpp"
#include "topology/pipeline.hpp"
#include "topology/supervisor.hpp"

namespace courier::topology {

// One running courier: the actor system, the pipeline, its supervisor and the admin plane over
// them, built in that order and torn down in the reverse one (the admin listener first: its
// handlers ping the pipeline's actors; the actor system last). `courier run`, the demo and the
// bench each hold one.
class runtime {
 public:
  // `admin`: a listener already bound (a bad admin.listen or a port in use is a start-up error
  // before anything connects), served once start() has a pipeline and stopped by the runtime
  // before the pipeline; nothing when it is off. The caller keeps it beyond the runtime.
  runtime(const courier_config& cfg, std::optional<admin::admin_listener>& admin);
  ~runtime();

  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;
  runtime(runtime&&) = delete;
  runtime& operator=(runtime&&) = delete;

  // Spawns the pipeline and its supervisor, then serves the admin listener over them. Returns
  // the supervisor's handle (where stop requests go). Once only.
  caf::actor start(pipeline_options options,
                   std::map<std::string, auth::credential> credentials = {});

  // After start().
  [[nodiscard]] pipeline& graph() { return *pipeline_; }
  [[nodiscard]] supervisor& watch() { return *supervisor_; }

  // /readyz answers 503 from now on, then the pipeline stops (drains, commits, closes); the
  // admin listener keeps answering until stop_admin() or the end. Idempotent, as
  // pipeline::stop() is.
  const stop_report& stop();

  // Stops the admin listener now (it is stopped at the end otherwise).
  void stop_admin();

 private:
  const courier_config& cfg_;
  caf::actor_system_config system_config_;
  caf::actor_system system_;
  std::optional<pipeline> pipeline_;
  std::optional<supervisor> supervisor_;
  std::optional<admin::admin_endpoints> endpoints_;
  std::optional<admin::admin_listener>& admin_;
};

}  // namespace courier::topology
