#include "actors/consumer_io.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "core/log/json_log.hpp"
#include "core/retry/header_value.hpp"

namespace courier::actors {

consumer_io::consumer_io(caf::event_based_actor* self, caf::actor delivery, const actor_time& time)
    : self_(self), time_(time), delivery_(std::move(delivery)) {}

void consumer_io::dispatch(record r) { batch_.push_back(std::move(r)); }

void consumer_io::flush() {
  if (!batch_.empty()) {
    self_->send(delivery_, deliver_atom::value, std::exchange(batch_, {}));
  }
}

void consumer_io::expedite(const partition_id& p, std::int64_t offset) {
  flush();  // the record it names reaches the pool first
  self_->send(delivery_, expedite_atom::value, record_position{p.topic, p.partition, offset});
}

void consumer_io::dead_letter(record r) {
  flush();  // the records before it reach the pool first
  self_->send(delivery_, dead_letter_atom::value, record_batch{std::move(r)});
}

void consumer_io::pause(const std::vector<partition_id>& ps) { kafka_->pause(ps); }

void consumer_io::resume(const std::vector<partition_id>& ps) { kafka_->resume(ps); }

void consumer_io::wake_at(const partition_id& p, std::int64_t at_ms) {
  const auto wait = std::chrono::milliseconds{
    std::max<std::int64_t>(0, at_ms - time_.now_ms(self_->clock().now()))};
  self_->delayed_send(self_, wait, due_atom::value, p.topic, p.partition, at_ms);
}

void consumer_io::malformed_due(const record& r, const std::string& error) {
  log::warn(
    "retry record with a malformed due time; delivering it now",
    {{"topic", r.topic}, {"partition", r.partition}, {"offset", r.offset}, {"error", error}});
}

void consumer_io::untrusted_provenance(const record& r, const std::vector<std::string>& names) {
  const auto verdict =
    sampler_.admit(r.topic, "untrusted_provenance", log::event_sampler::clock::now());
  if (!verdict.log) {
    return;  // counted in courier_untrusted_provenance_total
  }
  std::string joined;
  for (const auto& n : names) {
    joined += (joined.empty() ? "" : ",") + n;
  }
  log::warn("source record carried courier's provenance headers; they were taken off, not obeyed",
            {{"topic", r.topic},
             {"partition", r.partition},
             {"offset", r.offset},
             {"headers", cap_header_value(joined, 256)},
             {"suppressed", static_cast<std::int64_t>(verdict.suppressed)}});
}

void consumer_io::quota_share(std::int32_t assigned, std::int32_t topic_partitions) {
  self_->send(delivery_, share_atom::value, assigned, topic_partitions);
}

}  // namespace courier::actors
