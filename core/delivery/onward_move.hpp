#pragma once

// A record done with its attempts here moves on through the onward producer: a failed one to its
// next retry tier or the DLQ, carrying its key, value and retry headers; a delivered one, with
// receipts on, as its receipt. Pure: what the attempt policy (core/delivery/attempt_policy.hpp)
// hands the retry router, decided from the record, the route's topics and what happened.

#include <cstdint>
#include <string>

#include "core/model/attempt_answer.hpp"
#include "core/model/onward_record.hpp"
#include "core/model/record.hpp"
#include "core/model/route_topics.hpp"
#include "core/retry/receipt.hpp"
#include "core/retry/retry_headers.hpp"
#include "core/retry/retry_tiers.hpp"

namespace courier {

// Where a record goes, and what the onward producer writes there (its `tag` names the
// delivery in the broker's acknowledgement).
struct onward_move {
  destination to;
  onward_record onward;
};

// What a failed answer says, for the retry headers and the breaker's Open: the transport's
// message, or the status the receiver answered.
std::string failure_message(const attempt_answer& a);

// How a record failed here, as its tier or DLQ record's headers say it.
failure_info failure_of(const attempt_answer& a, std::string error_class,
                        std::vector<std::string> trace, int attempts, std::int64_t now_ms);

// Which tier a record that is not permanently failed moves to.
enum class tier_step : std::uint8_t {
  next,           // the next one, or the DLQ after the last
  stay_in_tiers,  // the retry budget refused it: from the last tier into the last tier again
  park,  // its endpoint's breaker is Open (a route with several endpoints): into the last tier
         // at once, to wait there without an attempt, one write per last-tier delay
};

// A failed record moves to its tier as `step` says, or to the DLQ when `permanent`. Its key and
// value go as they were, to the partition of its source, with the retry headers of `f` (written
// at f.failed_at_ms).
onward_move failure_move(const record& rec, const std::string& route, const route_topics& topics,
                         const failure_info& f, bool permanent, tier_step step, std::uint64_t tag);

// What a receipt says of a delivered record: `here` is the delivery as this process saw it (its
// attempts and first attempt here). A tier's copy or a redriven record names where it first
// appeared, every attempt over the tiers (added saturated at INT_MAX) and its first failure, as
// its headers say; headers that do not read name the copy as it is.
receipt receipt_of(const record& rec, receipt here);

// A delivered record's receipt on the receipts topic, keyed by its idempotency key, to the
// partition of its source.
onward_move receipt_move(const record& rec, const std::string& idempotency_key, const receipt& r,
                         const std::string& receipts_topic, std::uint64_t tag);

}  // namespace courier
