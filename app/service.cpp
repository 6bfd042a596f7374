#include "app/service.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "actors/messages.hpp"
#include "core/http/io_failure.hpp"
#include "core/kafka/broker_probe.hpp"
#include "core/kafka/error.hpp"
#include "core/log/json_log.hpp"
#include "admin/listener.hpp"
#include "topology/credentials.hpp"
#include "topology/runtime.hpp"
#include "topology/topics.hpp"

namespace courier::app {

using admin::admin_listener;
using admin::open_admin_listener;
using topology::ensure_topics;
using topology::first_credentials;
using topology::missing_topics;
using topology::pipeline_options;
using topology::required_topics;
using topology::retry_producer_properties;
using topology::runtime;
using topology::stop_cause;
using topology::stop_report;

namespace {

// How long the start-up waits for each bootstrap server to accept a TCP connection.
constexpr std::chrono::seconds broker_probe_timeout{3};

// Where a stop signal goes: before start() has a supervisor, it ends the process (exit 0,
// nothing consumed, nothing to commit); afterwards it is a message to the supervisor.
class stop_relay {
 public:
  template <class Start>
  void start(Start&& spawn) {
    const std::lock_guard<std::mutex> lock{m_};  // a signal meanwhile waits for the handle
    supervisor_ = spawn();
  }

  // No more stop requests (the process is on its way out): the waiter's wake-up is ignored,
  // and the supervisor's handle is released while its actor system still exists.
  void close() {
    const std::lock_guard<std::mutex> lock{m_};
    closed_ = true;
    supervisor_ = nullptr;
  }

  // A handler on an io thread threw (http/io_failure.hpp): the supervisor stops the process
  // like an actor's death (drain, commit, exit 1); before it exists, or once the process is on
  // its way out, the process ends at once with code 1.
  void fail(const std::string& what) {
    const std::lock_guard<std::mutex> lock{m_};
    failed_ = true;
    if (supervisor_ && !closed_) {
      caf::anon_send(supervisor_, actors::stop_atom::value, what);
      return;
    }
    log::error("a handler on an io thread failed",
               {{"error", what}, {"action", "exiting with code 1"}});
    std::fflush(nullptr);
    std::_Exit(1);
  }

  // An io thread failed at some point: the exit code is non-zero whatever stopped the process.
  bool failed() {
    const std::lock_guard<std::mutex> lock{m_};
    return failed_;
  }

  void stop(int sig) {
    const std::lock_guard<std::mutex> lock{m_};
    if (closed_) {
      return;
    }
    if (supervisor_) {
      caf::anon_send(supervisor_, actors::stop_atom::value, sig);
      return;
    }
    log::info("stopped before start", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
    std::fflush(nullptr);
    std::_Exit(0);  // nothing to drain or commit; the main thread may be inside librdkafka
  }

 private:
  std::mutex m_;
  caf::actor supervisor_;
  bool closed_ = false;
  bool failed_ = false;
};

// Whether every source, retry-tier and DLQ topic exists; names the missing ones on stderr.
bool all_topics_exist(const courier_config& cfg) {
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
    return false;
  }
  return true;
}

// The retry/DLQ producer's size and compression, as the service starts it.
void log_retry_producer(const courier_config& cfg) {
  // compression.codec is librdkafka's alias of compression.type.
  auto producer = retry_producer_properties(cfg);
  log::info("retry/DLQ producer sized", {{"message.max.bytes", producer["message.max.bytes"]},
                                         {"compression", producer.count("compression.type") != 0
                                                             ? producer["compression.type"]
                                                             : producer["compression.codec"]}});
}

// `courier run` once its stop signals are routed to `relay`: the admin listener, the start-up
// checks, the runtime, the wait for a stop, the stop. Returns the exit status.
int serve(const courier_config& cfg, stop_relay& relay) {
  // Bound before anything connects: a bad admin.listen or a port in use is a start-up error
  // (config_error, exit 2); connections wait in the backlog until the pipeline serves them.
  std::optional<admin_listener> admin = open_admin_listener(cfg.admin);
  if (admin) {
    log::info("admin listener bound", {{"listen", cfg.admin.listen}, {"port", admin->port()}});
  }

  // A broker that does not answer is told in one line now, not only after the topic check's
  // timeouts and librdkafka's lines; the check still waits for one that comes up meanwhile.
  const auto unreachable = kafka::unreachable_brokers(cfg.kafka.brokers, broker_probe_timeout);
  if (unreachable) {
    log::warn("the Kafka broker is unreachable",
              {{"brokers", cfg.kafka.brokers}, {"error", *unreachable}});
  }
  try {
    if (!all_topics_exist(cfg)) {
      return 2;
    }
  } catch (const kafka::kafka_error& e) {
    if (const auto still = kafka::unreachable_brokers(cfg.kafka.brokers, broker_probe_timeout)) {
      std::fprintf(stderr, "courier: %s\n",
                   kafka::unreachable_brokers_hint(cfg.kafka.brokers, *still).c_str());
      return 1;
    }
    throw;
  }

  // The listener's handlers ping the pipeline's actors: the runtime stops it before them.
  runtime rt{cfg, admin};
  pipeline_options options;
  // Before the pipeline: a token endpoint that refuses or a token file that is missing ends the
  // start (config_error, exit 2) with the key named, instead of a route that delivers nothing.
  auto credentials = first_credentials(cfg);
  log_retry_producer(cfg);
  // A signal while the pipeline starts waits for the supervisor, then stops it (drained).
  relay.start([&] { return rt.start(options, std::move(credentials)); });
  log::info("courier running", {{"brokers", cfg.kafka.brokers},
                                {"group_id", cfg.kafka.group_id},
                                {"routes", cfg.routes.size()}});
  const stop_cause cause = rt.watch().wait();
  switch (cause.what) {
    case stop_cause::kind::signal:
      log::info("stopping", {{"signal", cause.signal == SIGTERM ? "SIGTERM" : "SIGINT"}});
      break;
    case stop_cause::kind::actor_died:
    case stop_cause::kind::io_failed:
      break;  // logged by the supervisor
  }
  const stop_report& report = rt.stop();
  if (report.timed_out) {
    // The actor system would wait for the actor still running, without a bound: the process
    // ends here instead, non-zero. What it had not committed is fetched again after a restart.
    log::error("stopped without waiting for the actors still running",
               {{"problems", report.problems}});
    std::fflush(nullptr);
    std::_Exit(1);
  }
  rt.stop_admin();
  relay.close();
  if (!report.clean()) {
    // Each problem was logged as it came (a consumer whose final commit failed: its partitions'
    // next owner fetches again from the last commit; duplicates, nothing lost).
    log::error("stopped with problems", {{"problems", report.problems}});
    return 1;
  }
  log::info("stopped");
  return cause.what == stop_cause::kind::signal && !relay.failed() ? 0 : 1;
}

}  // namespace

int run_service(const courier_config& cfg) {
  // Block the stop signals before any thread starts, so only sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // The signals arrive on this thread only, from the first moment: during the start-up checks
  // (which may wait on an unreachable broker) a stop request ends the process at once, as
  // nothing has been consumed yet; once the supervisor exists it becomes a message to it, so
  // one wait covers both a stop request and an actor's death.
  stop_relay relay;
  std::thread signal_waiter{[&stop_signals, &relay] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    relay.stop(sig);
  }};
  log::info("courier starting", {{"brokers", cfg.kafka.brokers},
                                 {"routes", cfg.routes.size()},
                                 {"http_io_threads", cfg.http_io_threads}});
  // Joined on every way out of this function.
  struct joiner {
    std::thread& t;
    stop_relay& relay;
    ~joiner() {
      relay.close();
      // Wakes the signal waiter if no signal came, so it can be joined.
      // NOLINTNEXTLINE(bugprone-bad-signal-to-kill-thread): sigwait() takes it; nothing dies.
      pthread_kill(t.native_handle(), SIGTERM);
      t.join();
    }
  } join_signal_waiter{signal_waiter, relay};
  // Before anything starts an io thread (the admin listener, the routes' clients); the default
  // comes back once the relay is gone.
  struct io_failure_relay {
    explicit io_failure_relay(stop_relay& relay) {
      http::set_io_failure_handler([&relay](const std::string& what) { relay.fail(what); });
    }
    ~io_failure_relay() { http::set_io_failure_handler({}); }
    io_failure_relay(const io_failure_relay&) = delete;
    io_failure_relay& operator=(const io_failure_relay&) = delete;
    io_failure_relay(io_failure_relay&&) = delete;
    io_failure_relay& operator=(io_failure_relay&&) = delete;
  } relay_io_failures{relay};

  return serve(cfg, relay);
}

int run_topics_ensure(const courier_config& cfg, int source_partitions) {
  if (const auto why = kafka::unreachable_brokers(cfg.kafka.brokers, broker_probe_timeout)) {
    throw std::runtime_error(kafka::unreachable_brokers_hint(cfg.kafka.brokers, *why));
  }
  const auto created = ensure_topics(cfg, source_partitions, std::chrono::seconds{30});
  for (const auto& t : required_topics(cfg)) {
    const bool is_new = std::find(created.begin(), created.end(), t) != created.end();
    std::printf("%-8s %s\n", is_new ? "created" : "exists", t.c_str());
  }
  return 0;
}

}  // namespace courier::app
