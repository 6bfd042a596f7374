#include "topology/service.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <optional>
#include <thread>

#include "actors/messages.hpp"
#include "core/kafka/error.hpp"
#include "core/log/json_log.hpp"
#include "topology/admin_listener.hpp"
#include "topology/admin_routes.hpp"
#include "topology/pipeline.hpp"
#include "topology/supervisor.hpp"
#include "topology/topics.hpp"

namespace courier::topology {

int run_service(const courier_config& cfg) {
  // Block the stop signals before any thread starts, so only sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // Bound before anything connects: a bad admin.listen or a port in use is a start-up error
  // (config_error, exit 2); connections wait in the backlog until the pipeline serves them.
  std::optional<admin_listener> admin = open_admin_listener(cfg.admin);
  if (admin) {
    log::info("admin listener bound", {{"listen", cfg.admin.listen}, {"port", admin->port()}});
  }

  const auto missing = missing_topics(cfg, std::chrono::seconds{10});
  if (!missing.empty()) {
    std::string names;
    for (const auto& t : missing) {
      names += (names.empty() ? "" : ", ") + t;
    }
    std::fprintf(stderr,
                 "courier: missing topics: %s (create them with `courier topics ensure "
                 "--config FILE`)\n",
                 names.c_str());
    return 2;
  }

  caf::actor_system_config sys_cfg;
  actors::add_message_types(sys_cfg);
  caf::actor_system system{sys_cfg};
  // The listener's handlers ping actors of this system: it stops before the system goes.
  std::optional<admin_endpoints> endpoints;
  struct admin_stopper {
    std::optional<admin_listener>& admin;
    ~admin_stopper() {
      if (admin) {
        admin->stop();
      }
    }
  } stop_admin_first{admin};
  pipeline_options options;
  // Sized like `topics ensure` sizes the tier and DLQ topics: the largest source record plus
  // courier's headers (librdkafka's client-side default, 1,000,000, is below Kafka's topic
  // default of 1,048,588, so a record near 1 MB could not even leave the producer).
  try {
    options.producer_message_max_bytes =
        retry_producer_message_max_bytes(cfg, std::chrono::seconds{10});
    log::info("retry/DLQ producer sized",
              {{"message.max.bytes", options.producer_message_max_bytes}});
  } catch (const kafka::kafka_error& e) {
    // Without DescribeConfigs rights: librdkafka's default; a larger record holds its
    // partition (produce_blocked) instead of being lost.
    log::warn(
        "cannot read the source topics' max.message.bytes; the retry/DLQ producer keeps "
        "its default",
        {{"error", e.what()}});
  }
  pipeline p{system, cfg, options};
  supervisor sup{system, p};
  if (admin) {
    endpoints.emplace(system, p);
    admin->serve([&e = *endpoints](std::string_view method, std::string_view target) {
      return e.handle(method, target);
    });
  }
  log::info("courier running", {{"brokers", cfg.kafka.brokers},
                                {"group_id", cfg.kafka.group_id},
                                {"routes", cfg.routes.size()}});
  // The signals arrive here only (blocked everywhere else) and become a message to the
  // supervisor, so one wait covers both a stop request and an actor's death.
  std::thread signal_waiter{[&stop_signals, handle = sup.handle()] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    caf::anon_send(handle, actors::stop_atom::value, sig);
  }};
  const stop_cause cause = sup.wait();
  switch (cause.what) {
    case stop_cause::kind::signal:
      log::info("stopping", {{"signal", cause.signal == SIGTERM ? "SIGTERM" : "SIGINT"}});
      break;
    case stop_cause::kind::actor_died:
      // Wakes the signal waiter, whose SIGTERM is blocked, so it can be joined.
      // NOLINTNEXTLINE(bugprone-bad-signal-to-kill-thread): sigwait() takes it; nothing dies.
      pthread_kill(signal_waiter.native_handle(), SIGTERM);
      break;
  }
  signal_waiter.join();
  if (endpoints) {
    endpoints->set_stopping();  // /readyz: 503 while draining
  }
  p.stop();
  if (admin) {
    admin->stop();
  }
  log::info("stopped");
  return cause.what == stop_cause::kind::actor_died ? 1 : 0;
}

int run_topics_ensure(const courier_config& cfg, int source_partitions) {
  const auto created = ensure_topics(cfg, source_partitions, std::chrono::seconds{30});
  for (const auto& t : required_topics(cfg)) {
    const bool is_new = std::find(created.begin(), created.end(), t) != created.end();
    std::printf("%-8s %s\n", is_new ? "created" : "exists", t.c_str());
  }
  return 0;
}

}  // namespace courier::topology
