#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/flow/key_order.hpp"
#include "core/flow/offset_map.hpp"
#include "core/model/delivery_end.hpp"
#include "core/model/key_ordering.hpp"
#include "core/model/partition_id.hpp"
#include "core/model/record.hpp"
#include "core/model/record_position.hpp"

namespace courier {

// routes[].ordering "key" at intake: the book of key order of each partition of the route's
// source topic (core/flow/key_order.hpp), which copies of the records taken are in which book,
// and the followers, the records held behind an earlier one of their key. The consumer core
// (core/flow/consumer_core.hpp) asks it before it hands a record out and tells it what
// finished; what a book releases comes back to the core to hand out, and each book's ordering
// pause is the core's to set (on while the book is over its bounds).
//
// A book is kept for the partition's life, never erased, so only a partition of the source
// topic gets one: courier writes a record's tier copy to the partition of its origin's number,
// so a tier record of partition n whose courier.origin.* names the source's partition n takes
// its origin's place in the book of n, and every copy a partition holds is in the book of its
// number. With ordering "none" it orders nothing and allocates nothing.
//
// On a route with several endpoints the order is kept per endpoint and key (each partner waits
// only for its own earlier records, so one partner's outage parks none of another's keys): a
// scope names the endpoint a record goes to, and the book orders the pair. A record the scope
// names no endpoint for (it goes to none, or its name is unknown) goes unordered.
class ordered_intake {
 public:
  // The one endpoint a record (from the source or a tier) goes to; none: it goes unordered.
  using key_scope = std::function<std::optional<std::string>(const record&)>;

  // Without a scope, the order is the route's (one endpoint).
  ordered_intake(key_ordering ordering, std::string source_topic, key_scope scope = {});

  // What a book released: the records of its keys that may go now (the core hands them out).
  struct released {
    partition_id book;
    std::vector<key_order::release> go;
  };

  // -- intake ----------------------------------------------------------------------------------

  // A source partition assigned with an offset map that names records pending behind a
  // dead-lettered one (on_dead_letter "park"): before any of its records is taken, so they park
  // their keys behind the DLQ again.
  void park_dead_lettered(const partition_id& p, done_offsets origins);
  // The record taken (or read from a tier at an assignment) enters its book. Returns the book,
  // or none: a record without a key, a tier record whose origin is not the source partition of
  // its own number, and any record with ordering "none" go unordered.
  std::optional<partition_id> enter(const record& r, bool from_tier, std::int64_t now_ms);
  // Whether the record may go to the delivery pool now (attempt; also any record not entered),
  // must wait behind its key (follow), or goes to the DLQ behind it (dead_letter).
  key_order::verdict admit(const record& r);
  // The record admit() said to follow waits here. Returns its book (its pause may change).
  partition_id follow(record r);
  // A follower its book released; none once its partition was revoked (its next owner has it).
  std::optional<record> release(const record_position& at);
  // The copy at `offset` of `p` finished as `how`; none for a copy not entered.
  std::optional<released> finish(const partition_id& p, std::int64_t offset, delivery_end how,
                                 std::int64_t now_ms);

  // -- revoke ----------------------------------------------------------------------------------

  // The partition's followers are dropped (its next owner fetches them): their offsets.
  std::vector<std::int64_t> drop_followers(const partition_id& p);
  // The partition's copies leave their book; whoever holds them next finishes them. None when
  // it had none.
  std::optional<released> forget(const partition_id& p, std::int64_t now_ms);

  // -- the ordering pause ----------------------------------------------------------------------

  // The ordering pause `book` needs set: on while over its bounds, off when back within them;
  // none when unchanged (`force`: said again, as for a partition assigned anew) or no such book.
  std::optional<bool> ordering_pause(const partition_id& book, bool force = false);

  // -- observers -------------------------------------------------------------------------------

  // The source offsets of the records of its key after the record whose copy is at `at`, not yet
  // delivered or dead-lettered (what its DLQ record names); none for a copy not entered.
  [[nodiscard]] std::vector<std::int64_t> later_of_key(const record_position& at) const;
  // on_dead_letter "park", for the partition's commit: the records pending behind a
  // dead-lettered one of their key.
  [[nodiscard]] done_offsets dead_parked(const partition_id& p) const;
  [[nodiscard]] bool is_follower(const record_position& at) const {
    return followers_.count(at) != 0;
  }
  [[nodiscard]] std::size_t follower_count() const { return followers_.size(); }
  [[nodiscard]] std::size_t book_count() const { return books_.size(); }
  // A book's parked keys, the records held behind an earlier one of their key (in any of its
  // partitions) and the oldest park; none for a partition with no book.
  struct book_status {
    std::size_t parked_keys = 0;
    std::size_t followers = 0;
    std::optional<std::int64_t> oldest_parked_since_ms;
  };
  [[nodiscard]] std::optional<book_status> status(const partition_id& p) const;

 private:
  struct order_book {
    key_order order;
    bool over_bound = false;  // as the ordering pause was last set
  };

  // The book of the source partition of this number, made on first use.
  order_book& book_of(std::int32_t partition);
  // What the book orders the record by: its key, or its endpoint and key; none: unordered.
  [[nodiscard]] std::optional<std::string> order_key(const record& r) const;

  key_ordering ordering_;
  std::string source_topic_;
  key_scope scope_;
  std::map<partition_id, order_book> books_;  // by source partition
  // Per partition taken from (the source's or a tier's), the offsets of its copies in the book
  // of its number.
  std::map<partition_id, std::unordered_set<std::int64_t>> copies_;
  std::map<record_position, record> followers_;
};

}  // namespace courier
