#include "topology/auto_redrive_runner.hpp"

#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/kafka/cluster.hpp"
#include "topology/topics.hpp"
#include "tools/redrive/cli.hpp"
#include "tools/redrive/ledger.hpp"
#include "tools/redrive/redrive.hpp"

namespace courier::topology {

actors::auto_redrive_runner redrive_runner(const courier_config& cfg, const route_config& route) {
  const kafka::cluster at = cluster_of(cfg);
  redrive::options base;
  base.what = redrive::options::mode::redrive;
  base.from = topics_of(route).dlq;
  base.bootstrap = at.bootstrap;
  base.connection = at.connection;
  base.ledger_topic = redrive::default_ledger_topic(base.from);
  base.json = true;
  base.select.origin_topic = route.topic;
  base.home_topics = std::set<std::string>{route.topic};
  const auto& a = *route.auto_redrive;
  base.select.error_classes = a.classes;
  base.rate = a.rate;
  base.limit = a.max;
  return [base](const auto_redrive_event& event, bool dry_run, const std::function<bool()>& stop) {
    redrive::options o = base;
    o.dry_run = dry_run;
    o.select.since_ms = event.since_ms;
    o.select.until_ms = event.until_ms;
    o.stop_requested = stop;
    std::ostringstream out;
    std::ostringstream err;
    const int code = redrive::run(o, out, err);
    actors::auto_redrive_outcome result;
    const auto report = nlohmann::json::parse(out.str(), nullptr, /*allow_exceptions=*/false);
    if (report.is_object()) {
      result.moved = report.value("moved", std::size_t{0});
      result.would_move = report.value("would_move", std::size_t{0});
      result.failed = report.value("failed", std::size_t{0});
      result.already_redriven = report.value("already_redriven", std::size_t{0});
    }
    result.stopped = stop();
    // Exit 1 with the report's failed records is their count already; without a report, or
    // with nothing counted, the run itself failed.
    const bool counted =
        report.is_object() && code == redrive::exit_some_failed && result.failed > 0;
    if (code != redrive::exit_done && !result.stopped && !counted) {
      result.error = err.str().empty() ? "redrive exited " + std::to_string(code) : err.str();
      while (!result.error.empty() && result.error.back() == '\n') {
        result.error.pop_back();
      }
    }
    return result;
  };
}

}  // namespace courier::topology
