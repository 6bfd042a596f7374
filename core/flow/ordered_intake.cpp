#include "core/flow/ordered_intake.hpp"

#include <limits>
#include <utility>

#include "core/retry/retry_headers.hpp"

namespace courier {

ordered_intake::ordered_intake(key_ordering ordering, std::string source_topic, key_scope scope)
    : ordering_(ordering), source_topic_(std::move(source_topic)), scope_(std::move(scope)) {}

void ordered_intake::park_dead_lettered(const partition_id& p, done_offsets origins) {
  if (origins.empty() || ordering_.mode != ordering_mode::key ||
      ordering_.on_dead_letter != dead_letter_followers::park || p.topic != source_topic_) {
    return;
  }
  book_of(p.partition).order.park_behind_dead_letter(std::move(origins));
}

std::optional<partition_id> ordered_intake::enter(const record& r, bool from_tier,
                                                  std::int64_t now_ms) {
  if (ordering_.mode == ordering_mode::none || !r.key) {
    return std::nullopt;
  }
  // Any origin but the source partition of its own number (another topic, another partition, a
  // name made up by whoever wrote the record) was not written by courier and gets no book of
  // its own: it goes unordered, as one whose origin cannot be read. Unordered is the safe side:
  // it holds no key of a genuine record back and allocates nothing, and a genuine record never
  // has it.
  if (!from_tier && r.topic != source_topic_) {
    return std::nullopt;
  }
  std::int64_t origin_offset = r.offset;
  if (find_header(r.headers, origin_topic_header)) {
    try {
      if (const auto from = read_retry_state(r.headers).from) {
        if (from->topic == source_topic_ && from->partition == r.partition) {
          origin_offset = from->offset;
        } else if (from_tier) {
          return std::nullopt;
        }
        // A source record naming another origin is a record of its partition, at its offset.
      }
    } catch (const header_error&) {
      // Its headers were written by hand or by something else: no place in the order is known.
      // A tier record's due time says so (malformed_due); it goes unordered.
      return std::nullopt;
    }
  } else if (from_tier) {
    return std::nullopt;  // a tier record courier did not write: no place in the source's order
  }
  const auto key = order_key(r);
  if (!key) {
    return std::nullopt;
  }
  auto& b = book_of(r.partition);
  b.order.enter(*key, origin_offset, {r.topic, r.partition, r.offset}, now_ms);
  copies_[partition_id{r.topic, r.partition}].insert(r.offset);
  return partition_id{source_topic_, r.partition};
}

key_order::verdict ordered_intake::admit(const record& r) {
  const auto copies = copies_.find(partition_id{r.topic, r.partition});
  if (copies == copies_.end() || copies->second.count(r.offset) == 0) {
    return key_order::verdict::attempt;
  }
  return book_of(r.partition).order.admit({r.topic, r.partition, r.offset});
}

partition_id ordered_intake::follow(record r) {
  partition_id book{source_topic_, r.partition};
  auto at = r.position();
  followers_.emplace(std::move(at), std::move(r));
  return book;
}

std::optional<record> ordered_intake::release(const record_position& at) {
  const auto held = followers_.find(at);
  if (held == followers_.end()) {
    return std::nullopt;
  }
  record r = std::move(held->second);
  followers_.erase(held);
  return r;
}

std::optional<ordered_intake::released> ordered_intake::finish(const partition_id& p,
                                                               std::int64_t offset,
                                                               delivery_end how,
                                                               std::int64_t now_ms) {
  const auto copies = copies_.find(p);
  if (copies == copies_.end() || copies->second.erase(offset) == 0) {
    return std::nullopt;
  }
  auto go = book_of(p.partition).order.finish({p.topic, p.partition, offset}, how, now_ms);
  return released{partition_id{source_topic_, p.partition}, std::move(go)};
}

std::vector<std::int64_t> ordered_intake::drop_followers(const partition_id& p) {
  std::vector<std::int64_t> out;
  const record_position first{p.topic, p.partition, std::numeric_limits<std::int64_t>::min()};
  for (auto f = followers_.lower_bound(first);
       f != followers_.end() && f->first.partition_of() == p;) {
    out.push_back(f->first.offset);
    f = followers_.erase(f);
  }
  return out;
}

std::optional<ordered_intake::released> ordered_intake::forget(const partition_id& p,
                                                               std::int64_t now_ms) {
  const auto copies = copies_.find(p);
  if (copies == copies_.end()) {
    return std::nullopt;
  }
  const bool had_copies = !copies->second.empty();
  copies_.erase(copies);
  if (!had_copies) {
    return std::nullopt;
  }
  auto& b = book_of(p.partition);
  b.order.drop_held(p);
  // Whoever holds them next finishes them: order by them is that owner's (the group's range
  // assignment gives it the source partition too).
  auto go = b.order.finished_below(p, std::numeric_limits<std::int64_t>::max(), {}, now_ms);
  return released{partition_id{source_topic_, p.partition}, std::move(go)};
}

std::optional<bool> ordered_intake::ordering_pause(const partition_id& book, bool force) {
  const auto b = books_.find(book);
  if (b == books_.end()) {
    return std::nullopt;
  }
  const bool over = b->second.order.over_bound();
  if (over == b->second.over_bound && !force) {
    return std::nullopt;
  }
  b->second.over_bound = over;
  return over;
}

std::vector<std::int64_t> ordered_intake::later_of_key(const record_position& at) const {
  const auto copies = copies_.find(at.partition_of());
  if (copies == copies_.end() || copies->second.count(at.offset) == 0) {
    return {};
  }
  const auto b = books_.find(partition_id{source_topic_, at.partition});
  return b == books_.end() ? std::vector<std::int64_t>{} : b->second.order.later_than(at);
}

done_offsets ordered_intake::dead_parked(const partition_id& p) const {
  const auto b = books_.find(p);
  return b == books_.end() ? done_offsets{} : b->second.order.dead_parked_origins();
}

std::optional<ordered_intake::book_status> ordered_intake::status(const partition_id& p) const {
  const auto b = books_.find(p);
  if (b == books_.end()) {
    return std::nullopt;
  }
  const auto& order = b->second.order;
  return book_status{order.parked_keys(), order.followers(), order.oldest_parked_since_ms()};
}

std::optional<std::string> ordered_intake::order_key(const record& r) const {
  if (!scope_) {
    return r.key;
  }
  auto endpoint = scope_(r);
  if (!endpoint) {
    return std::nullopt;
  }
  // The name cannot hold the separator (config: letters, digits, '.', '_', '-'), so the pair
  // reads back one way only.
  endpoint->push_back('\0');
  endpoint->append(*r.key);
  return endpoint;
}

ordered_intake::order_book& ordered_intake::book_of(std::int32_t partition) {
  partition_id p{source_topic_, partition};
  auto b = books_.find(p);
  if (b == books_.end()) {
    b = books_.emplace(std::move(p), order_book{key_order{ordering_, source_topic_}, false}).first;
  }
  return b->second;
}

}  // namespace courier
