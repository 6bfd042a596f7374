#pragma once

// A route with several endpoints: each record goes to the endpoints it is for, and its consumer
// hears of it once, when every one of them has its delivery done or handed on (delivered, moved
// to a retry tier, dead-lettered). The plain class the fan-out actor (actors/endpoint_fanout)
// drives: it decides which endpoint's delivery pool gets which copy and joins the outcomes; the
// actor sends.
//
// Each copy carries `courier.endpoint: <name>`, so its tier and DLQ records name the endpoint
// they are for: on the route's retry tiers (topics only courier writes) that header alone decides
// where the record goes. On the source topic any producer writes it, so there it can only narrow
// what the route's filters or selection chose (redrive returns a record for one endpoint that
// way); a name they did not choose sends the record nowhere, never to another partner.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/delivery_outcome.hpp"
#include "core/model/error_classes.hpp"
#include "core/model/record.hpp"
#include "core/model/record_position.hpp"
#include "core/retry/retry_headers.hpp"  // endpoint_header
#include "core/routing/endpoint_routing.hpp"

namespace courier::routing {

using courier::endpoint_header;

// The error class of a record dead-lettered because it names none of the route's endpoints.
inline constexpr std::string_view unknown_endpoint_class = error_class_name::unknown_endpoint;

// The endpoints a record goes to: on a retry tier (any topic but `source_topic`) the one its
// courier.endpoint names (`unknown` when that is none of the route's); on the source, what the
// route's filters or selection choose, narrowed to the one courier.endpoint names if it does.
// What the fan-out sends and what `courier audit` expects.
routing_decision endpoints_for(const endpoint_routing& routing, const record& r,
                               std::string_view source_topic);

class endpoint_fanout {
 public:
  // `receipts`: the route writes receipts, so a copy's 2xx comes (on_answered) before its
  // delivered outcome.
  endpoint_fanout(endpoint_routing routing, std::string source_topic, bool receipts = false);

  // What one batch of a consumer's records becomes.
  struct dispatch {
    std::vector<std::vector<record>> deliver;  // per endpoint (routing's rules' order)
    // Named no endpoint, with on_unknown_endpoint "dead_letter": to the DLQ unattempted, class
    // unknown_endpoint (through the first endpoint's pool, whose outcome comes back as any).
    std::vector<record> dead_letter;
    std::vector<delivery_outcome> done;  // for none of the endpoints: filtered, reported now
  };
  dispatch on_records(std::vector<record> records);

  // An endpoint's outcome for one copy. The record's outcome for its consumer once every copy
  // has one: delivered when all were, else dead-lettered when one was, else retried.
  std::optional<delivery_outcome> on_outcome(const delivery_outcome& o);
  // An endpoint's copy was answered 2xx; its receipt is on its way. Once every copy of a record
  // was answered or has its outcome, and some await their receipts, the record awaits them too:
  // take_answered() names it once, for its consumer (consumer_core::awaiting_receipt).
  void on_answered(const record_position& at);
  [[nodiscard]] std::vector<record_position> take_answered();

  // Records sent and not joined yet.
  [[nodiscard]] std::size_t pending() const { return pending_.size(); }
  [[nodiscard]] std::size_t endpoints() const { return routing_.rules().size(); }
  [[nodiscard]] const endpoint_routing& routing() const { return routing_; }

 private:
  struct join {
    std::size_t waiting = 0;    // copies without an outcome
    std::size_t answering = 0;  // copies neither answered 2xx nor with an outcome
    bool told = false;          // named by take_answered()
    delivery_outcome joined;
  };
  // A copy no longer waits for its answer: the record may await only receipts now.
  void answered(const record_position& at, join& j);

  // `copies` more outcomes to join for the record at `at` (its first: a fresh join).
  void expect(const record_position& at, std::size_t copies);
  void send(record r, const std::vector<std::size_t>& to, dispatch& out);

  endpoint_routing routing_;
  std::string source_topic_;
  std::map<record_position, join> pending_;
  bool receipts_ = false;
  std::vector<record_position> answered_;  // for take_answered()
};

}  // namespace courier::routing
