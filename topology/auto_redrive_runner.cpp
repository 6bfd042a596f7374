#include "topology/auto_redrive_runner.hpp"

#include <set>
#include <string>

#include "core/kafka/error.hpp"
#include "core/redrive/ledger.hpp"
#include "core/redrive/mover.hpp"
#include "core/redrive/request.hpp"
#include "core/redrive/setup.hpp"
#include "topology/topics.hpp"

namespace courier::topology {

actors::auto_redrive_runner redrive_runner(const courier_config& cfg, const route_config& route,
                                           const std::string& endpoint) {
  redrive::request base;
  if (!endpoint.empty()) {
    base.select.endpoint = endpoint;
  }
  base.from = topics_of(route).dlq;
  base.cluster = cluster_of(cfg);
  base.ledger_topic = redrive::default_ledger_topic(base.from);
  base.select.origin_topic = route.topic;
  base.home_topics = std::set<std::string>{route.topic};
  const auto& a = *route.auto_redrive;
  base.select.error_classes = a.classes;
  base.rate = a.rate;
  base.limit = a.max;
  return [base](const auto_redrive_event& event, bool dry_run, const std::function<bool()>& stop) {
    redrive::request r = base;
    r.dry_run = dry_run;
    r.select.since_ms = event.since_ms;
    r.select.until_ms = event.until_ms;
    r.stop_requested = stop;
    actors::auto_redrive_outcome result;
    try {
      const redrive::run_summary s = redrive::move_records(r);
      result.moved = s.moved;
      result.would_move = s.would_move;
      result.failed = s.failed;
      result.already_redriven = s.already_redriven;
      result.stopped = stop();
      // A Kafka failure midway with records counted failed is their count already; with none,
      // the run itself failed.
      if (s.interrupted && !result.stopped && s.failed == 0) {
        result.error = "redrive: stopped: " + *s.interrupted;
      }
    } catch (const redrive::setup_error& e) {
      result.stopped = stop();
      if (!result.stopped) {
        result.error = std::string{"redrive: "} + e.what();
      }
    } catch (const kafka::kafka_error& e) {
      result.stopped = stop();
      if (!result.stopped) {
        result.error = std::string{"redrive: "} + e.what();
      }
    }
    return result;
  };
}

}  // namespace courier::topology
