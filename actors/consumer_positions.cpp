#include "actors/consumer_positions.hpp"

#include <algorithm>
#include <cstdint>

#include "actors/actor_time.hpp"
#include "core/log/json_log.hpp"

namespace courier::actors {
namespace {

// A starving route is told about at most this often.
constexpr std::int64_t starvation_log_interval_ms = 60'000;

}  // namespace

void on_consumer_positions(caf::stateful_actor<consumer_actor_state>* self,
                           const std::vector<kafka::partition_position>& ps) {
  auto& st = self->state;
  st.metrics->partitions.publish(ps);
  std::int64_t lag = -1;
  bool source = false;
  for (const auto& p : ps) {
    if (st.settings.core.gated_topics.count(p.topic) == 0) {
      source = true;
      if (p.lag >= 0) {
        lag = std::max<std::int64_t>(lag, 0) + p.lag;
      }
    }
  }
  if (!source) {
    return;  // the tiers' member's report (split_consumer): starvation is the source's
  }
  const auto now = now_ms(self);
  const auto v = st.starvation->on_stats(now, lag);
  if (!v) {
    return;
  }
  ++st.metrics->actors[route_counter::fetch_starved];
  if (now - st.starvation_logged_ms < starvation_log_interval_ms) {
    return;
  }
  st.starvation_logged_ms = now;
  log::warn(
    "the route starves for records its partitions hold: librdkafka stops fetching for up to a "
    "second once its queue holds queued.max.messages.kbytes; raise that in kafka.properties "
    "to about a second of deliveries (rate x record size)",
    {{"route", st.settings.route},
     {"waited_ms", v->starved_ms},
     {"of_ms", v->window_ms},
     {"lag", v->lag},
     {"queued_max_messages_kbytes", st.settings.kafka.queued_max_messages_kbytes()}});
}

}  // namespace courier::actors
