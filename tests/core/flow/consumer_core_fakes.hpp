#pragma once

// The consumer core's test backend and the records and settings its tests build.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/flow/consumer_core.hpp"
#include "core/flow/offset_map.hpp"

namespace courier::testing {

inline const partition_id p0{"brew.shipments.v1", 0};
inline const partition_id p1{"brew.shipments.v1", 1};
inline const partition_id tier0{"brew.shipments.v1.retry-5s", 0};

// Records what the core decided, and checks librdkafka's rules on the way: a partition is
// resumed only when paused, and paused only when not.
class fake_io final : public consumer_backend {
 public:
  void dispatch(record r) override { dispatched.push_back(std::move(r)); }
  void dead_letter(record r) override { dead_lettered.push_back(std::move(r)); }
  void expedite(const partition_id& p, std::int64_t offset) override {
    expedited.emplace_back(p, offset);
  }
  void pause(const std::vector<partition_id>& ps) override {
    for (const auto& p : ps) {
      EXPECT_TRUE(paused.insert(p).second) << "paused twice: " << p.topic << p.partition;
    }
  }
  void resume(const std::vector<partition_id>& ps) override {
    for (const auto& p : ps) {
      EXPECT_EQ(paused.erase(p), 1U) << "resumed without a pause: " << p.topic << p.partition;
    }
  }
  void wake_at(const partition_id& p, std::int64_t at_ms) override { wakes.emplace_back(p, at_ms); }
  void malformed_due(const record& r, const std::string& /*error*/) override {
    malformed.push_back(r.offset);
  }
  void untrusted_provenance(const record& r, const std::vector<std::string>& names) override {
    untrusted.emplace_back(r.offset, names);
  }

  std::vector<record> dispatched;
  std::vector<record> dead_lettered;  // unattempted, behind a dead-lettered record of their key
  std::vector<std::pair<partition_id, std::int64_t>> expedited;
  std::set<partition_id> paused;
  std::map<partition_id, std::int64_t> stored;  // commit points taken as the actor takes them
  std::vector<std::pair<partition_id, std::int64_t>> wakes;
  std::vector<std::int64_t> malformed;
  std::vector<std::pair<std::int64_t, std::vector<std::string>>> untrusted;
};

// The offsets of p among the records handed out, in order.
inline std::vector<std::int64_t> offsets_of(const std::vector<record>& rs, const partition_id& p) {
  std::vector<std::int64_t> out;
  for (const auto& r : rs) {
    if (r.topic == p.topic && r.partition == p.partition) {
      out.push_back(r.offset);
    }
  }
  return out;
}

inline record rec(const partition_id& p, std::int64_t offset) {
  record r;
  r.topic = p.topic;
  r.partition = p.partition;
  r.offset = offset;
  r.value = "{\"shipment\":" + std::to_string(offset) + "}";
  return r;
}

// The partitions as the wrapper passes them when nothing was committed for them.
inline std::vector<assigned_partition> fresh(const std::vector<partition_id>& ps) {
  std::vector<assigned_partition> out;
  for (const auto& p : ps) {
    out.push_back(assigned_partition{p, std::nullopt, {}});
  }
  return out;
}

// The commit points that moved, taken into io.stored as the consumer actor commits them.
inline std::map<partition_id, std::int64_t>& stored(consumer_core& core, fake_io& io) {
  for (const auto& c : core.commit_points(default_offset_map_budget)) {
    io.stored[c.partition] = c.offset;
  }
  return io.stored;
}

// A revoke as the consumer actor makes it: the last commit, then the revoke.
inline void give_up(consumer_core& core, fake_io& io, const std::vector<partition_id>& ps) {
  for (const auto& c : core.commit_points(default_offset_map_budget, ps)) {
    io.stored[c.partition] = c.offset;
  }
  core.revoke(ps);
}

inline void commit_all(consumer_core& core, fake_io& io) {
  for (const auto& c : core.commit_points(default_offset_map_budget, core.assignment())) {
    io.stored[c.partition] = c.offset;
  }
}

inline record due_rec(const partition_id& p, std::int64_t offset, std::int64_t due_ms) {
  auto r = rec(p, offset);
  r.headers.emplace_back("courier.retry.due", std::to_string(due_ms));
  return r;
}

inline consumer_core_settings bounded(std::size_t max_in_flight) {
  consumer_core_settings s;
  s.max_in_flight = max_in_flight;
  s.head_of_line_records = 0;
  s.source_topic = p0.topic;
  return s;
}

// The same, with tier0's topic a retry tier behind the due-time gate.
inline consumer_core_settings bounded_with_tier(std::size_t max_in_flight) {
  auto s = bounded(max_in_flight);
  s.gated_topics = {tier0.topic};
  return s;
}

}  // namespace courier::testing
