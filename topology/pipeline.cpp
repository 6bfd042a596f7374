#include "topology/pipeline.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include <random>

#include "actors/breaker_actor.hpp"
#include "actors/consumer_actor.hpp"
#include "actors/credential_keeper.hpp"
#include "actors/delivery_pool.hpp"
#include "actors/endpoint_fanout_actor.hpp"
#include "actors/messages.hpp"
#include "actors/auto_redrive_actor.hpp"
#include "actors/pause_controller.hpp"
#include "actors/retry_router.hpp"
#include "core/retry/rewrite_producer.hpp"
#include "topology/auto_redrive_runner.hpp"
#include "topology/credentials.hpp"
#include "topology/route_settings.hpp"
#include "topology/topics.hpp"
#include "core/log/json_log.hpp"

namespace courier::topology {
namespace {

std::uint64_t seed_or_random(std::uint64_t seed) {
  if (seed != 0) {
    return seed;
  }
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32U) ^ rd();
}

// How the route signs, never with what: the secrets stay out of every log line.
void log_route_started(const route_config& route) {
  auto schemes = nlohmann::json::array();
  for (const auto scheme : route.signing.schemes) {
    schemes.push_back(std::string{to_string(scheme)});
  }
  log::info(
      "route started",
      {{"route", route.name},
       {"topic", route.topic},
       {"url", route.endpoints.empty() ? http::display_url(route.url)
                                       : std::to_string(route.endpoints.size()) + " endpoints"},
       {"allow_private_targets", route.allow_private_targets},
       {"max_in_flight", route.max_in_flight},
       {"signing", schemes},
       {"standard_webhooks_secrets", route.signing.secrets.size()},
       {"idempotency_key_format", std::string{to_string(route.idempotency_key)}}});
}

// One endpoint of a route with several: where it sends and how, never with what.
void log_endpoint_started(const route_config& route, const route_endpoint& endpoint) {
  log::info("endpoint started",
            {{"route", route.name},
             {"endpoint", endpoint.name},
             {"url", http::display_url(endpoint.settings.url)},
             {"filter", endpoint.filter ? endpoint.filter->describe() : std::string{"none"}}});
}

// Waits for monitored actors to go down by a deadline; one that ends otherwise than asked (an
// exception, a kill), or is still running at the deadline, is a problem of the stop report.
class down_watch {
 public:
  down_watch(caf::scoped_actor& self, std::map<caf::actor_addr, std::string> names,
             stop_report& report)
      : self_(self), names_(std::move(names)), report_(report) {}

  void await(std::size_t count, caf::exit_reason expected,
             std::chrono::steady_clock::time_point deadline, const char* what_is_late) {
    bool late = false;
    for (std::size_t i = 0; i < count && !late; ++i) {
      const auto left = std::max(std::chrono::steady_clock::duration::zero(),
                                 deadline - std::chrono::steady_clock::now());
      self_->receive(
          [&](const caf::down_msg& down) {
            if (down.reason == expected) {
              return;
            }
            const auto it = names_.find(down.source);
            std::string name = it == names_.end() ? std::string{"an actor"} : it->second;
            log::error("actor stopped abnormally",
                       {{"actor", name}, {"reason", to_string(down.reason)}});
            report_.problems.push_back(name + ": " + to_string(down.reason));
          },
          caf::after(std::chrono::duration_cast<std::chrono::milliseconds>(left)) >>
              [&] {
                log::error(what_is_late, {{"still_running", count - i}});
                late = true;
                report_.timed_out = true;
              });
    }
  }

 private:
  caf::scoped_actor& self_;
  std::map<caf::actor_addr, std::string> names_;
  stop_report& report_;
};

}  // namespace

pipeline::pipeline(caf::actor_system& system, const courier_config& cfg, pipeline_options options,
                   std::map<std::string, auth::credential> credentials)
    : system_(system),
      options_(options),
      credentials_(std::move(credentials)),
      io_(cfg.http_io_threads) {
  // A failure half-way (a client that cannot be made, a thread that cannot start) stops what
  // was spawned so far: left running, those actors would keep the actor system, and with it
  // the process, from ever ending.
  try {
    spawn_graph(cfg);
  } catch (...) {
    stop();
    throw;
  }
}

std::map<std::string, std::string> retry_producer_properties(const courier_config& cfg) {
  return rewrite_producer_properties(cfg.kafka.properties);
}

void pipeline::spawn_endpoint(const route_endpoint& endpoint, endpoint_graph& e, std::uint64_t seed,
                              bool several) {
  const route_config& partner = endpoint.settings;
  e.client = std::make_shared<http::client>(io_.contexts(), http::parse_endpoint(partner.url),
                                            client_settings_of(partner));
  e.breaker =
      system_.spawn(actors::breaker_actor, partner.name, several ? endpoint.name : std::string{},
                    static_cast<const breaker_settings&>(partner.breaker), e.metrics);
  e.delivery = system_.spawn(
      actors::delivery_pool,
      several ? endpoint_pool_settings_of(endpoint) : delivery_pool_settings_of(partner), e.client,
      e.breaker, router_, e.metrics, seed);
  caf::anon_send(e.breaker, actors::subscribe_atom::value, e.delivery);
  if (!partner.auth.any()) {
    return;
  }
  actors::credential_keeper_settings ks;
  ks.route = partner.name;
  ks.auth = partner.auth;
  if (const auto it = credentials_.find(credentials_key(partner.name, endpoint.name));
      it != credentials_.end()) {
    ks.first = it->second;
  }
  if (partner.auth.oauth2) {
    e.token_client = std::make_shared<http::client>(
        *io_.contexts().front(), http::parse_endpoint(partner.auth.oauth2->token_url),
        token_client_settings(partner));
  }
  e.credentials = system_.spawn(actors::credential_keeper, ks,
                                std::static_pointer_cast<http::poster>(e.token_client));
  caf::anon_send(e.credentials, actors::subscribe_atom::value, e.delivery);
}

void pipeline::spawn_graph(const courier_config& cfg) {
  std::uint64_t seed = seed_or_random(options_.seed);
  std::vector<std::string> onward_topics;
  for (const auto& route : cfg.routes) {
    const auto of_route = topics_of(route).onward();
    onward_topics.insert(onward_topics.end(), of_route.begin(), of_route.end());
  }
  router_ = system_.spawn<caf::detached>(actors::retry_router, cfg.kafka.brokers,
                                         retry_producer_properties(cfg), std::move(onward_topics),
                                         router_metrics_);
  for (const auto& route : cfg.routes) {
    // In the list from its first actor on, so that stop() finds whatever was spawned.
    auto& g = routes_.emplace_back();
    g.name = route.name;
    g.topic = route.topic;
    const auto topics = topics_of(route);
    g.dlq_topic = topics.dlq;
    const auto metrics_of = [](const route_config& r) {
      return std::make_shared<actors::route_metrics>(
          std::chrono::duration<double>(r.http.timeout).count());
    };
    g.metrics = metrics_of(route);
    const auto endpoints = endpoints_of(route);
    const bool one = route.endpoints.empty();
    for (const auto& endpoint : endpoints) {
      auto& e = g.endpoints.emplace_back();
      e.name = endpoint.name;
      e.metrics = one ? g.metrics : metrics_of(endpoint.settings);
      spawn_endpoint(endpoint, e, seed++, !one);
      if (!one) {
        log_endpoint_started(route, endpoint);
      }
    }
    std::vector<caf::actor> pools;
    for (const auto& e : g.endpoints) {
      pools.push_back(e.delivery);
    }
    // Its partitions pause when its breaker (every endpoint's breaker) stays Open.
    g.pause_controller = system_.spawn(actors::pause_controller, route.name, route.pause_after,
                                       g.metrics, g.endpoints.size());
    for (const auto& e : g.endpoints) {
      caf::anon_send(e.breaker, actors::subscribe_atom::value, g.pause_controller);
    }
    if (one) {
      g.delivery = g.endpoints.front().delivery;
    } else {
      g.delivery = system_.spawn(actors::endpoint_fanout_actor, route.name,
                                 routing::endpoint_fanout{routing_of(route, endpoints), route.topic,
                                                          !route.receipts_topic.empty()},
                                 std::move(pools));
    }

    const auto cs = consumer_actor_settings_of(cfg, route, options_.drain_timeout);
    g.consumer = system_.spawn<caf::detached>(actors::consumer_actor, cs, g.delivery, g.metrics);
    if (route.auto_redrive) {
      // Each endpoint's breaker drives its own; a route with one has one, over its whole DLQ.
      for (auto& e : g.endpoints) {
        const std::string endpoint = one ? std::string{} : e.name;
        e.auto_redrive =
            system_.spawn(actors::auto_redrive_actor, route.name, endpoint, *route.auto_redrive,
                          redrive_runner(cfg, route, endpoint), g.metrics);
        caf::anon_send(e.breaker, actors::subscribe_atom::value, e.auto_redrive);
      }
    }
    if (g.pause_controller) {
      caf::anon_send(g.pause_controller, actors::subscribe_atom::value, g.consumer);
    }
    log_route_started(route);
  }
}

pipeline::~pipeline() { stop(); }

const stop_report& pipeline::stop() {
  if (stopped_) {
    return report_;
  }
  stopped_ = true;
  std::map<caf::actor_addr, std::string> names;
  for (const auto& [name, a] : actors()) {
    names.emplace(a.address(), name);
  }
  caf::scoped_actor self{system_};
  down_watch watch{self, std::move(names), report_};
  std::size_t consumers = 0;
  for (const auto& g : routes_) {
    if (g.consumer) {
      self->monitor(g.consumer);
      self->send(g.consumer, actors::drain_atom::value);
      ++consumers;
    }
  }
  // The consumers quit once drained (or at their drain deadline) and committed.
  watch.await(consumers, caf::exit_reason::normal,
              std::chrono::steady_clock::now() + options_.drain_timeout + std::chrono::seconds{30},
              "a consumer did not stop in time");
  // The other actors hold the HTTP clients: they must be gone before the io_contexts stop.
  std::size_t waiting = 0;
  const auto stop_actor = [&](const caf::actor& a) {
    if (!a) {
      return;  // a graph whose construction failed before this actor
    }
    self->monitor(a);
    self->send_exit(a, caf::exit_reason::user_shutdown);
    ++waiting;
  };
  for (const auto& g : routes_) {
    for (const auto& e : g.endpoints) {
      if (e.client) {
        e.client->shutdown();
      }
      if (e.token_client) {
        e.token_client->shutdown();
      }
      for (const auto& a : {e.delivery, e.breaker, e.credentials, e.auto_redrive}) {
        stop_actor(a);
      }
    }
    const bool fanout = g.endpoints.empty() || g.delivery != g.endpoints.front().delivery;
    for (const auto& a : {fanout ? g.delivery : caf::actor{}, g.pause_controller}) {
      stop_actor(a);
    }
  }
  // The router goes last: the delivery pools may still have been waiting for its acks.
  if (router_) {
    self->monitor(router_);
    self->send_exit(router_, caf::exit_reason::user_shutdown);
    ++waiting;
  }
  watch.await(waiting, caf::exit_reason::user_shutdown,
              std::chrono::steady_clock::now() + std::chrono::seconds{10},
              "an actor did not stop in time");
  io_.stop();
  return report_;
}

const std::vector<route_graph>& pipeline::routes() const { return routes_; }

std::vector<std::pair<std::string, caf::actor>> pipeline::actors() const {
  std::vector<std::pair<std::string, caf::actor>> out;
  const auto add = [&out](std::string name, const caf::actor& a) {
    if (a) {  // null only in a graph whose construction failed before it
      out.emplace_back(std::move(name), a);
    }
  };
  add("retry_router", router_);
  for (const auto& g : routes_) {
    const std::string of = " of route " + g.name;
    const bool one = g.endpoints.size() == 1 && g.endpoints.front().name == g.name;
    for (const auto& e : g.endpoints) {
      const std::string at = one ? of : " of endpoint " + e.name + of;
      add("breaker" + at, e.breaker);
      add("delivery_pool" + at, e.delivery);
      add("credential_keeper" + at, e.credentials);
      add("auto_redrive" + at, e.auto_redrive);
    }
    if (g.endpoints.empty() || g.delivery != g.endpoints.front().delivery) {
      add("endpoint_fanout" + of, g.delivery);
    }
    add("pause_controller" + of, g.pause_controller);
    add("consumer" + of, g.consumer);
  }
  return out;
}

}  // namespace courier::topology
