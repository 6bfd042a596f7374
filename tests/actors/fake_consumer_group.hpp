#pragma once

// A consumer group of one member, played in memory for the consumer actor on CAF's deterministic
// coordinator (no librdkafka, no broker).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "actors/consumer_actor.hpp"
#include "core/kafka/consumer.hpp"
#include "core/kafka/group_consumer.hpp"

namespace courier::testing {

// The test scripts what the member's next poll() brings (assignments, revocations, records, in
// the order scripted) and reads what the member stored, committed, paused and whether it closed.
// As kafka::consumer does it: the rebalance callbacks run inside poll(); a revocation calls
// on_revoked, then commits the stored offsets, then drops the partitions (and their stored
// offsets); a store for a partition that is not assigned is skipped; close() commits, then
// revokes what is still assigned (on_revoked once more, and a commit). A record of a paused
// partition stays queued until the partition is resumed; one of a partition not assigned when
// its turn comes is dropped.
class fake_consumer_group : public std::enable_shared_from_this<fake_consumer_group> {
 public:
  struct store {
    partition_id partition;
    std::int64_t next_offset = 0;
    bool taken = false;  // the partition was assigned: a real consumer would have stored it
  };

  // -- scripting: what the next poll brings --------------------------------------------------

  void assign(std::vector<partition_id> ps) { script_.emplace_back(assign_step{std::move(ps)}); }
  void revoke(std::vector<partition_id> ps) { script_.emplace_back(revoke_step{std::move(ps)}); }
  // Records of `p` at offsets [from, to), the value naming each.
  void fetch(const partition_id& p, std::int64_t from, std::int64_t to) {
    for (auto offset = from; offset < to; ++offset) {
      record r;
      r.topic = p.topic;
      r.partition = p.partition;
      r.offset = offset;
      r.value = payload{"{\"offset\":" + std::to_string(offset) + "}"};
      script_.emplace_back(std::move(r));
    }
  }

  // -- what the member did --------------------------------------------------------------------

  std::vector<store> stores;                       // every store, in order, skipped ones too
  std::map<partition_id, std::int64_t> committed;  // the group's committed offsets
  std::set<partition_id> paused;
  std::size_t polls = 0;
  bool closed = false;

  // The stores that named `p` from the index `since` of `stores` on.
  std::vector<store> stores_of(const partition_id& p, std::size_t since = 0) const {
    std::vector<store> out;
    for (auto i = since; i < stores.size(); ++i) {
      if (stores[i].partition == p) {
        out.push_back(stores[i]);
      }
    }
    return out;
  }

  // For consumer_actor_settings::open_consumer: the member this group plays.
  actors::group_consumer_factory factory() {
    return [group = shared_from_this()](const kafka::consumer_settings&,
                                        kafka::consumer::callbacks cb) {
      return std::unique_ptr<kafka::group_consumer>{new member{group, std::move(cb)}};
    };
  }

 private:
  struct assign_step {
    std::vector<partition_id> partitions;
  };
  struct revoke_step {
    std::vector<partition_id> partitions;
  };
  using step = std::variant<assign_step, revoke_step, record>;

  class member final : public kafka::group_consumer {
   public:
    member(std::shared_ptr<fake_consumer_group> group, kafka::consumer::callbacks cb)
        : group_(std::move(group)), cb_(std::move(cb)) {}
    ~member() override { close(); }
    member(const member&) = delete;
    member& operator=(const member&) = delete;
    member(member&&) = delete;
    member& operator=(member&&) = delete;

    std::vector<record> poll(std::chrono::milliseconds /*timeout*/,
                             std::size_t max_records) override {
      auto& g = *group_;
      if (g.closed) {
        throw std::logic_error("poll on a closed consumer");
      }
      ++g.polls;
      std::vector<record> out;
      const auto limit = std::max<std::size_t>(max_records, 1);
      for (auto it = g.script_.begin(); it != g.script_.end() && out.size() < limit;) {
        if (auto* a = std::get_if<assign_step>(&*it)) {
          const auto ps = std::move(a->partitions);
          it = g.script_.erase(it);
          g.assigned_.insert(ps.begin(), ps.end());
          if (cb_.on_assigned) {
            cb_.on_assigned(ps);
          }
          continue;
        }
        if (auto* r = std::get_if<revoke_step>(&*it)) {
          const auto ps = std::move(r->partitions);
          it = g.script_.erase(it);
          revoke(ps);
          continue;
        }
        auto& rec = std::get<record>(*it);
        const partition_id p{rec.topic, rec.partition};
        if (g.assigned_.count(p) == 0) {
          it = g.script_.erase(it);
          continue;
        }
        if (g.paused.count(p) != 0) {
          ++it;
          continue;
        }
        out.push_back(std::move(rec));
        it = g.script_.erase(it);
      }
      return out;
    }

    bool store_offset(const partition_id& p, std::int64_t next_offset) override {
      return store_offsets({{p, next_offset}}) == 1;
    }

    std::size_t store_offsets(
        const std::vector<std::pair<partition_id, std::int64_t>>& offsets) override {
      auto& g = *group_;
      std::size_t taken = 0;
      for (const auto& [p, next] : offsets) {
        const bool assigned = !g.closed && g.assigned_.count(p) != 0;
        g.stores.push_back(store{p, next, assigned});
        if (assigned) {
          g.stored_[p] = next;
          ++taken;
        }
      }
      return taken;
    }

    void commit_sync() override {
      auto& g = *group_;
      for (const auto& [p, next] : g.stored_) {
        g.committed[p] = next;
      }
    }

    void pause(const std::vector<partition_id>& ps) override {
      group_->paused.insert(ps.begin(), ps.end());
    }

    void resume(const std::vector<partition_id>& ps) override {
      for (const auto& p : ps) {
        group_->paused.erase(p);
      }
    }

    std::vector<partition_id> assignment() const override {
      return {group_->assigned_.begin(), group_->assigned_.end()};
    }

    void close() override {
      auto& g = *group_;
      if (g.closed) {
        return;
      }
      commit_sync();
      revoke(assignment());
      g.closed = true;
    }

   private:
    void revoke(const std::vector<partition_id>& ps) {
      if (ps.empty()) {
        return;
      }
      if (cb_.on_revoked) {
        cb_.on_revoked(ps);
      }
      commit_sync();
      auto& g = *group_;
      for (const auto& p : ps) {
        g.assigned_.erase(p);
        g.stored_.erase(p);
        g.paused.erase(p);
      }
    }

    std::shared_ptr<fake_consumer_group> group_;
    kafka::consumer::callbacks cb_;
  };

  std::deque<step> script_;
  std::set<partition_id> assigned_;
  std::map<partition_id, std::int64_t> stored_;  // for the next commit, per assigned partition
};

}  // namespace courier::testing
