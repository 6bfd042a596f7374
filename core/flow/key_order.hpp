#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/flow/offset_map.hpp"
#include "core/model/delivery_end.hpp"
#include "core/model/key_ordering.hpp"
#include "core/model/partition_id.hpp"
#include "core/model/record_position.hpp"

namespace courier {

// The per-key order of one source partition's records through its retry tiers (routes[].ordering
// "key", DESIGN.md section 11): a record with a key is attempted only once every earlier record
// of that key (by offset in the source partition) was delivered or dead-lettered. Records
// without a key are not ordered and never come here.
//
// A record is known by its origin (its offset in the source partition); where it waits, by its
// copies: the record in the source partition, and the copy each move to a retry tier writes. A
// record is finished for good once delivered or dead-lettered; until then it has an unfinished
// copy, or is in transit (moved, its new copy not seen yet). A key is parked while one of its
// records has a copy in a tier or is in transit. Knowledge comes from two sides: the stage that
// takes, attempts and finishes copies, and Kafka (for an owner that takes the partition over:
// the tiers' records past their committed offsets, entered before the source partition's
// records are admitted).
//
// Pure bookkeeping, no clock (times come in as arguments) and no I/O: the stage holds the
// records themselves and releases them as finish() says.
class key_order {
 public:
  enum class verdict : std::uint8_t {
    attempt,      // no earlier record of its key is unfinished: deliver it
    follow,       // an earlier one is: hold it; a later finish() releases it
    dead_letter,  // on_dead_letter park: an earlier one was dead-lettered; to the DLQ behind it
                  // (a park lasts while the key has records pending: one that comes after
                  // the last of them went to the DLQ is attempted)
  };

  key_order(key_ordering s, std::string source_topic);

  // A copy's place as the caller has it, without copying its topic (a record's fields, or a
  // record_position).
  struct copy_ref {
    std::string_view topic;
    std::int32_t partition = 0;
    std::int64_t offset = 0;
    // The order of a record_position's fields; a partition and an offset never swap silently in
    // the calls (a record's fields, a partition_id's with an offset).
    // NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
    copy_ref(std::string_view t, std::int32_t p, std::int64_t o)
        : topic(t), partition(p), offset(o) {}
    copy_ref(const record_position& at)  // NOLINT(google-explicit-constructor): a view of it
        : topic(at.topic), partition(at.partition), offset(at.offset) {}
  };

  // A copy of the record at `origin` exists at `at`, unfinished (the stage took it, or Kafka
  // shows it). A copy already known changes nothing. Entering the new copy of a record in
  // transit ends the transit.
  void enter(const std::string& key, std::int64_t origin, copy_ref at, std::int64_t now_ms);

  // The stage would attempt the copy at `at` (entered before). `follow` makes it a follower
  // until finish() releases it. A copy not entered is attempted (nothing to order it by).
  verdict admit(copy_ref at);

  // A copy released by finish(), and what to do with it now.
  struct release {
    record_position at;
    verdict what = verdict::attempt;  // attempt, or dead_letter (park)
  };
  // The copy at `at` finished: delivered, dead-lettered, or retried (moved to a tier: the
  // record is in transit until its new copy is entered, and stays unfinished). Returns the
  // followers that may go now, each once, in origin order. A copy not known returns nothing.
  std::vector<release> finish(copy_ref at, delivery_end how, std::int64_t now_ms);

  // The committed view of a partition the copies wait in (the source partition or a tier's),
  // for copies this stage does not hold: those below `committed` or in `done` finished there.
  // The caller reads the committed offsets of every partition of the chain first, then their
  // records up to the end (entering them): a copy that moved on is then entered in its next
  // place before its old one is taken as finished here. Returns the followers that may go.
  std::vector<release> finished_below(const partition_id& place, std::int64_t committed,
                                      const std::set<std::int64_t>& done, std::int64_t now_ms);

  // The stage no longer holds these partitions' copies (revoked): their followers are no
  // longer held here. The copies stay unfinished: their next owner has them.
  void drop_held(const partition_id& place);

  // on_dead_letter park, for the commit: the origins of the records pending behind a
  // dead-lettered record of their key (they go to the DLQ behind it).
  [[nodiscard]] done_offsets dead_parked_origins() const;
  // The same, read from the commit by the partition's next owner: each record entered with one
  // of these origins parks its key behind the DLQ as its dead-lettered predecessor did (replaces
  // what an earlier call gave).
  void park_behind_dead_letter(done_offsets origins);

  // The origins of the key's unfinished records after `origin` (what a DLQ record of it names).
  [[nodiscard]] std::vector<std::int64_t> later_than(const std::string& key,
                                                     std::int64_t origin) const;

  // The same for the record whose copy is at `at` (none for a copy not known).
  [[nodiscard]] std::vector<std::int64_t> later_than(copy_ref at) const;

  // Keys with a record in a tier (or in transit), and with on_dead_letter park those behind a
  // dead-lettered record (until the last record of the key then pending went to the DLQ).
  [[nodiscard]] std::size_t parked_keys() const;
  [[nodiscard]] std::size_t followers() const { return followers_; }
  [[nodiscard]] std::optional<std::int64_t> oldest_parked_since_ms() const;
  // Beyond max_parked_keys, or a key with more than max_followers: the partition must stop
  // taking records (a pause reason) until it is back within them.
  [[nodiscard]] bool over_bound() const;
  // Every record of every key finished and nothing held.
  [[nodiscard]] bool empty() const { return records_.empty(); }

 private:
  // A copy as the book keeps it: its place (an index into places_: the source partition and
  // the tier partitions its records moved to) and offset. Per record and per key the lists are
  // short (a copy or two, the key's records in flight): vectors; the books are hashed, as they
  // are touched for every record of the route.
  struct copy_at {
    std::uint32_t place = 0;
    std::int64_t offset = 0;
    friend bool operator==(const copy_at& a, const copy_at& b) {
      return a.offset == b.offset && a.place == b.place;
    }
  };
  struct copy_at_hash {
    std::size_t operator()(const copy_at& c) const {
      const std::size_t h = std::hash<std::int64_t>{}(c.offset);
      return h ^ (c.place + 0x9e3779b97f4a7c15ULL + (h << 6U) + (h >> 2U));  // boost's mix
    }
  };
  struct place_info {
    partition_id id;
    bool tier = false;
  };
  struct pending_record {
    std::string key;
    std::vector<copy_at> copies;
    std::vector<copy_at> held;  // of copies: followers
    bool in_transit = false;
  };
  struct key_book {
    std::vector<std::int64_t> pending;  // origins not finished for good, ascending
    std::size_t in_tiers = 0;           // tier copies and records in transit
    std::size_t held = 0;               // follower copies
  };

  // How a copy's wait ended, as far as the book can tell.
  enum class ending : std::uint8_t {
    delivered,      // the record is finished for good
    dead_lettered,  // so is it
    moved,          // to a tier: in transit until its new copy is entered
    left,           // a committed view passed it: finished for good if nothing else is left
  };

  [[nodiscard]] std::optional<std::uint32_t> find_place(std::string_view topic,
                                                        std::int32_t partition) const;
  [[nodiscard]] std::optional<copy_at> find_copy(copy_ref at) const;
  [[nodiscard]] bool in_tier(const copy_at& c) const { return places_[c.place].tier; }
  [[nodiscard]] record_position position_of(const copy_at& c) const;
  // The known copies in `where`, by offset.
  [[nodiscard]] std::vector<copy_at> copies_in(const partition_id& where) const;
  // Removes the copy; finishes the record for good as `how` says. Appends the releases that
  // follow.
  void remove_copy(const copy_at& at, ending how, std::vector<release>& out);
  void release_head(const std::string& key, std::vector<release>& out);
  void set_held(key_book& k, std::size_t held);
  // Parked or not, after a change of the key's tier copies; forgets a key left with nothing.
  void settle(const std::string& key, std::int64_t now_ms);

  key_ordering settings_;
  std::string source_topic_;
  std::unordered_map<std::int64_t, pending_record> records_;  // by origin
  std::vector<place_info> places_;
  std::unordered_map<copy_at, std::int64_t, copy_at_hash> origin_of_;  // every known copy
  std::unordered_map<std::string, key_book> keys_;                     // keys with a pending record
  std::unordered_map<std::string, std::int64_t> parked_;               // parked keys: since when
  std::unordered_set<std::string> dead_parked_;  // park: keys behind a DLQ record
  done_offsets parked_by_commit_;                // park: origins the commit names, not entered yet
  std::size_t followers_ = 0;
  std::size_t keys_over_followers_ = 0;  // keys holding more than max_followers
};

}  // namespace courier
