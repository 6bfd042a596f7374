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
// the order scripted) and reads what the member committed, paused and whether it closed. As
// kafka::consumer does it: the rebalance callbacks run inside poll(); an assignment passes what
// the group committed for each partition (offset and metadata); a revocation calls on_revoked,
// and drops the partitions then, or, when the member answers `later`, at complete_revoke() (the
// script waits for it, as the group does); a lost one (revoke_lost) the same, but the group
// refuses commits for those partitions from then on. A commit for a partition not assigned is
// refused; close() revokes what is still assigned (on_revoked once more). A record of a paused
// partition stays queued until the partition is resumed; one of a partition not assigned when
// its turn comes is dropped.
class fake_consumer_group : public std::enable_shared_from_this<fake_consumer_group> {
 public:
  struct commit {
    offset_commit point;
    bool taken = false;  // the partition was assigned: the group committed it
  };

  // -- scripting: what the next poll brings --------------------------------------------------

  void assign(std::vector<partition_id> ps) { script_.emplace_back(assign_step{std::move(ps)}); }
  void revoke(std::vector<partition_id> ps) {
    script_.emplace_back(revoke_step{std::move(ps), false});
  }
  void revoke_lost(std::vector<partition_id> ps) {
    script_.emplace_back(revoke_step{std::move(ps), true});
  }
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

  std::vector<commit> commits;                      // every commit, refused ones too
  std::map<partition_id, offset_commit> committed;  // the group's committed offsets
  std::set<partition_id> paused;
  std::size_t polls = 0;
  bool closed = false;
  bool revoke_waiting = false;  // on_revoked answered `later`, complete_revoke() not called yet

  // The commits that named `p` from the index `since` of `commits` on, refused ones too.
  std::vector<commit> commits_of(const partition_id& p, std::size_t since = 0) const {
    std::vector<commit> out;
    for (auto i = since; i < commits.size(); ++i) {
      if (commits[i].point.partition == p) {
        out.push_back(commits[i]);
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
    bool lost = false;
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
          if (g.revoke_waiting) {
            break;  // the group waits for the revoke
          }
          const auto ps = std::move(a->partitions);
          it = g.script_.erase(it);
          g.assigned_.insert(ps.begin(), ps.end());
          std::vector<assigned_partition> given;
          for (const auto& p : ps) {
            const auto c = g.committed.find(p);
            given.push_back(c == g.committed.end()
                                ? assigned_partition{p, std::nullopt, {}}
                                : assigned_partition{p, c->second.offset, c->second.metadata});
          }
          if (cb_.on_assigned) {
            cb_.on_assigned(given);
          }
          continue;
        }
        if (auto* r = std::get_if<revoke_step>(&*it)) {
          if (g.revoke_waiting) {
            break;
          }
          const auto ps = std::move(r->partitions);
          const bool lost = r->lost;
          it = g.script_.erase(it);
          revoke(ps, lost);
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

    void commit(const std::vector<offset_commit>& offsets, kafka::commit_mode /*mode*/) override {
      auto& g = *group_;
      std::vector<commit_outcome> outcomes;
      for (const auto& c : offsets) {
        const bool taken =
            !g.closed && g.assigned_.count(c.partition) != 0 && g.lost_.count(c.partition) == 0;
        g.commits.push_back(fake_consumer_group::commit{c, taken});
        if (taken) {
          g.committed[c.partition] = c;
        }
        outcomes.push_back(
            commit_outcome{c.partition, c.offset, taken ? "" : "not assigned", false});
      }
      if (cb_.on_committed && !outcomes.empty()) {
        cb_.on_committed(outcomes);
      }
    }

    void complete_revoke() override {
      auto& g = *group_;
      if (!g.revoke_waiting) {
        return;
      }
      g.revoke_waiting = false;
      drop(std::exchange(revoking_, {}));
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
      complete_revoke();
      std::vector<partition_id> left;
      for (const auto& p : assignment()) {
        left.push_back(p);
      }
      closing_ = true;
      revoke(left, false);
      g.closed = true;
    }

   private:
    void revoke(const std::vector<partition_id>& ps, bool lost) {
      if (ps.empty()) {
        return;
      }
      auto& g = *group_;
      if (lost) {
        g.lost_.insert(ps.begin(), ps.end());
      }
      auto timing = kafka::revoke_timing::now;
      if (cb_.on_revoked) {
        timing = cb_.on_revoked(ps, lost);
      }
      if (timing == kafka::revoke_timing::later && !closing_) {
        g.revoke_waiting = true;
        revoking_ = ps;
        return;
      }
      drop(ps);
    }

    void drop(const std::vector<partition_id>& ps) {
      auto& g = *group_;
      for (const auto& p : ps) {
        g.assigned_.erase(p);
        g.paused.erase(p);
        g.lost_.erase(p);
      }
    }

    std::shared_ptr<fake_consumer_group> group_;
    kafka::consumer::callbacks cb_;
    std::vector<partition_id> revoking_;
    bool closing_ = false;
  };

  std::deque<step> script_;
  std::set<partition_id> assigned_;
  std::set<partition_id> lost_;  // revoked as lost, not given up yet: commits refused
};

}  // namespace courier::testing
