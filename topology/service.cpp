#include "topology/service.hpp"

#include <csignal>

#include "actors/messages.hpp"
#include "core/json_log.hpp"
#include "topology/pipeline.hpp"

namespace courier::topology {

int run_service(const courier_config& cfg) {
  // Block the stop signals before any thread starts, so only sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  caf::actor_system_config sys_cfg;
  actors::add_message_types(sys_cfg);
  caf::actor_system system{sys_cfg};
  pipeline p{system, cfg, pipeline_options{}};
  log::info("courier running", {{"brokers", cfg.kafka.brokers},
                                {"group_id", cfg.kafka.group_id},
                                {"routes", cfg.routes.size()}});
  int sig = 0;
  sigwait(&stop_signals, &sig);
  log::info("stopping", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
  p.stop();
  log::info("stopped");
  return 0;
}

}  // namespace courier::topology
