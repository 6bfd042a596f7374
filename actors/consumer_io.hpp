#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <caf/all.hpp>

#include "actors/actor_time.hpp"
#include "actors/messages.hpp"
#include "core/flow/consumer_core.hpp"
#include "core/kafka/group_consumer.hpp"
#include "core/log/event_sampler.hpp"

namespace courier::actors {

// The consumer core's I/O: librdkafka for fetch flags and offsets, CAF messages for the
// delivery pool and the consumer's own timers.
class consumer_io final : public consumer_backend {
 public:
  // `time`: the actor's (actor_time.hpp), for the wait until a due time.
  consumer_io(caf::event_based_actor* self, caf::actor delivery, const actor_time& time);
  void attach(kafka::group_consumer* kafka) { kafka_ = kafka; }

  void dispatch(record r) override;  // batched: flush() sends them
  // Sends the records dispatched since the last flush to the delivery pool, in one message.
  void flush();
  void expedite(const partition_id& p, std::int64_t offset) override;
  void dead_letter(record r) override;
  void pause(const std::vector<partition_id>& ps) override;
  void resume(const std::vector<partition_id>& ps) override;
  void wake_at(const partition_id& p, std::int64_t at_ms) override;
  void malformed_due(const record& r, const std::string& error) override;
  void untrusted_provenance(const record& r, const std::vector<std::string>& names) override;
  // Tells the delivery pool this instance's share of the route's quota (routes[].rate_limit).
  void quota_share(std::int32_t assigned, std::int32_t topic_partitions);

 private:
  caf::event_based_actor* self_;
  const actor_time& time_;
  caf::actor delivery_;
  kafka::group_consumer* kafka_ = nullptr;
  record_batch batch_;
  // A producer that writes courier's headers on every record must not flood the log.
  log::event_sampler sampler_{5, std::chrono::minutes{1}};
};

}  // namespace courier::actors
