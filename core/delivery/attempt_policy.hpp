#pragma once

// The delivery attempt policy of one route: which records are pending, and for each event what
// must happen next (ask the breaker, post an attempt, wait, move the record on, report it).
// Its parts: the pending deliveries and their phase (pending_deliveries.hpp), what may go now and
// what waits for what (attempt_gate.hpp, asked once per attempt), where a record moves on to
// (onward_move.hpp) and the route's endpoint flags (endpoint_flags.hpp); this class is the
// attempt cycle between them.
//
// The shape is Zeek Broker's channel: the logic decides, the actor that owns it carries out.
// Each event returns the list of actions it decided, in the order they must be carried out,
// instead of calling a Backend template parameter. Why: every answer the shell gets for an
// action (a permit, an HTTP answer, the broker's acknowledgement) arrives later as a message
// and comes back as another event, so a decision never needs a result from the shell while it
// runs; a list keeps the class an ordinary compiled class in this module (no template in the
// header), cannot re-enter the policy while it is changing its own state, and lets a test
// compare what one event decided as a value, without a fake backend.
//
// Pure and thread-free: time comes in with the events that need it (every event that can post
// an attempt brings it: each attempt is signed afresh with its own webhook-timestamp), the random
// source of the backoff through the constructor. No logging: log lines are actions too.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/delivery/adaptive_limit.hpp"
#include "core/delivery/answer_judge.hpp"
#include "core/delivery/attempt_gate.hpp"
#include "core/delivery/backoff.hpp"
#include "core/delivery/breaker.hpp"
#include "core/delivery/delivery_counters.hpp"
#include "core/delivery/delivery_request.hpp"
#include "core/delivery/endpoint_flags.hpp"
#include "core/delivery/onward_move.hpp"
#include "core/delivery/pending_deliveries.hpp"
#include "core/delivery/retry_budget.hpp"
#include "core/delivery/secret_redactor.hpp"
#include "core/delivery/token_bucket.hpp"
#include "core/http/client.hpp"  // http::request
#include "core/model/attempt_answer.hpp"
#include "core/model/delivery_id.hpp"
#include "core/model/delivery_outcome.hpp"
#include "core/model/log_line.hpp"
#include "core/model/onward_record.hpp"
#include "core/model/transport_error.hpp"
#include "core/model/breaker_permit.hpp"
#include "core/model/delivery_end.hpp"
#include "core/model/record.hpp"
#include "core/model/route_topics.hpp"
#include "core/retry/retry_tiers.hpp"

namespace courier {

struct attempt_policy_settings {
  std::string route;    // the route's name, for the retry headers and log lines
  route_topics topics;  // its source, retry tiers and DLQ
  std::string content_type = "application/json";
  signing_settings signing;
  backoff_policy backoff;
  answer_judge_settings judge;
  // Set: attempts in flight are bounded by an adaptive limit (core/delivery/adaptive_limit.hpp);
  // attempts over it wait, oldest first, for an answer to free a slot.
  std::optional<adaptive_limit_settings> adaptive;
  // Static and forwarded headers of every request.
  route_headers headers;
  // routes[].auth: every request carries the Authorization value on_credentials gave; none is
  // sent before the first. A 401 asks for fresh credentials once per record before it counts as
  // an endpoint failure.
  bool authenticated = false;
  // Set: every request (first attempts, retries, probes) takes a token of this quota, scaled
  // by on_quota_share; an attempt without one waits, holding no connection.
  std::optional<rate_limit_settings> rate_limit;
  // Set: retries (attempts that are not a record's first, a retry tier's included) stay within
  // this share of first attempts; one over it moves its record on to its retry tier.
  std::optional<retry_budget_settings> retry_budget;
  // With topics.receipts: the courier process named in each receipt (host:pid).
  std::string instance;
  // Secrets of the route besides the signing secrets and static header values (the url's path
  // and query): with them and the Authorization an attempt carried, replaced by "[redacted]" in
  // the answer's text before anything keeps it (core/delivery/secret_redactor.hpp).
  std::vector<std::string> secrets;
  // One endpoint of a route with several (and retry tiers): while its breaker is Open a record
  // does not wait here, holding its source partition's commit point for the others: it moves to
  // the last retry tier at once, unattempted, and comes back from there (tier_step::park).
  bool park_while_open = false;
  // With park_while_open: the endpoint's share of its route's records in flight
  // (routes[].endpoints[].max_in_flight); a record that comes while this many are pending here
  // moves to the last retry tier at once, unattempted (class endpoint_busy), so a slow endpoint
  // does not hold the others' source partitions. 0: no share of its own.
  std::size_t max_pending = 0;
};

class attempt_policy {
 public:
  using time_point = std::chrono::system_clock::time_point;

  // One record on its way to the receiver (core/delivery/pending_deliveries.hpp).
  using delivery = pending_delivery;

  using log_level = courier::log_level;
  using log_line = courier::log_line;

  // -- actions: what the shell carries out ---------------------------------------------------

  // Ask the breaker for a permit; its answer goes to on_permit.
  struct request_permit {
    delivery_id id{};
  };
  // Post the request; the answer goes to on_answer with answer.id = id.
  struct post_attempt {
    delivery_id id{};
    http::request request;
  };
  // Call on_retry_due(id) after `delay`.
  struct schedule_retry {
    delivery_id id{};
    std::chrono::milliseconds delay{0};
  };
  // One breaker event: a whole delivery (or one endpoint failure) ended this way.
  struct breaker_outcome {
    bool success = false;
    bool probe = false;
    std::uint64_t generation = 0;  // of the permit of the delivery's latest attempt
    bool gone = false;  // the receiver answered 410: open at once and stay open (breaker::on_gone)
    // A failure's Retry-After, unclamped: the Open it leads to lasts at least that long
    // (breaker::on_failure).
    std::chrono::milliseconds retry_after{0};
    breaker_failure why;  // a failure's class and message, as the tier record's headers say them
  };
  // Produce `onward` (a retry-tier or DLQ record, headers from retry_headers) and call
  // on_onward_acked(id) once the broker acknowledged it, or on_onward_failed(id, why).
  struct produce_onward {
    delivery_id id{};
    destination to;
    onward_record onward;  // produce.topic = to.topic, the source's partition; tag = id
  };
  // Tell the record's consumer how its delivery ended; the record is no longer pending.
  struct report_outcome {
    delivery_id id{};
    delivery_outcome outcome;
    std::int64_t record_timestamp_ms = 0;  // the record's Kafka timestamp (0: none)
  };

  // Call on_token_due after `delay`: the rate limit will have a token for the next waiting
  // attempt.
  struct schedule_token {
    std::chrono::microseconds delay{0};
  };
  // Ask for fresh credentials: the partner answered 401 to an attempt that carried `stale`.
  // The answer goes to on_credentials_refreshed(id, ...).
  struct refresh_credentials {
    delivery_id id{};
    std::string stale;
  };

  using action =
      std::variant<request_permit, post_attempt, schedule_retry, breaker_outcome, produce_onward,
                   report_outcome, log_line, schedule_token, refresh_credentials>;
  using actions = std::vector<action>;

  attempt_policy(attempt_policy_settings settings, full_jitter_backoff::uniform_source uniform);

  // -- events ---------------------------------------------------------------------------------

  // A record from a consumer. `id` names the new delivery in the actions (the shell keeps the
  // consumer to report to under it).
  struct accepted {
    delivery_id id{};
    actions todo;
  };
  accepted on_record(record r, time_point now);

  // A record the consumer sends to the DLQ without an attempt (ordering.on_dead_letter "park":
  // an earlier record of its key was dead-lettered): produced to the DLQ with error class
  // key_parked; its outcome is reported, dead-lettered, once the broker acknowledged it.
  accepted on_parked_record(record r, time_point now);

  // A record of a route with several endpoints that names none of them (routes[].endpoint_from,
  // on_unknown_endpoint "dead_letter"): to the DLQ unattempted, error class unknown_endpoint.
  accepted on_unknown_endpoint_record(record r, time_point now);

  // The breaker's answer to request_permit{id}. Denied: the record is parked until the breaker
  // leaves Open, spending nothing.
  actions on_permit(delivery_id id, const breaker_permit& permit, time_point now);

  // The answer to post_attempt{answer.id}.
  actions on_answer(const attempt_answer& answer, time_point now);

  // The timer of schedule_retry{id} fired.
  actions on_retry_due(delivery_id id, time_point now);

  // The consumer's head-of-line bound names a record: one waiting in its backoff moves on now
  // (unless the breaker is Open), one in an attempt at its next retriable failure. Records
  // parked by the breaker or held for an endpoint failure stay: they wait for the endpoint.
  actions on_expedite(const record_position& at, time_point now);

  // The breaker changed state; leaving Open gives the parked records their permit requests.
  // `generation` is the breaker's after the change: while the breaker is known Closed an
  // attempt needs no permit (a Closed breaker grants every one) and carries that generation.
  actions on_breaker_change(breaker_state to, std::uint64_t generation, time_point now);

  // The broker acknowledged produce_onward{id}.
  actions on_onward_acked(delivery_id id);

  // The timer of schedule_token fired: attempts waiting for the rate limit go while it has
  // tokens.
  actions on_token_due(time_point now);

  // This instance's share of the route's quota: `assigned` of the source topic's
  // `topic_partitions` partitions (quota_share). No assignment keeps the share it had: the
  // records still in flight of revoked partitions finish at it.
  actions on_quota_share(int assigned, int topic_partitions, time_point now);

  // The route's Authorization value (routes[].auth), first or changed: attempts waiting for
  // credentials go.
  actions on_credentials(std::string authorization, time_point now);

  // The answer to refresh_credentials{id}: fresh credentials (the record tries again at once,
  // its 401 not counted), or none (the 401 counts as an endpoint failure: the record is held).
  actions on_credentials_refreshed(delivery_id id, const std::optional<std::string>& fresh,
                                   time_point now);

  // An operator paused (true) or resumed this endpoint of a route with several (POST
  // /routes/<r>/endpoints/<e>/pause): while paused, a record's next attempt does not go; the
  // record moves to the last retry tier unattempted (class endpoint_paused) and comes back from
  // there, as while the breaker is Open (park_while_open).
  void set_operator_paused(bool paused) { operator_paused_ = paused; }
  [[nodiscard]] bool operator_paused() const { return operator_paused_; }

  // produce_onward{id} will never be acknowledged (the router is gone): the record is dropped
  // without an outcome, so its offset stays uncommitted.
  actions on_onward_failed(delivery_id id, const std::string& why);

  // -- observers ------------------------------------------------------------------------------

  [[nodiscard]] const delivery* find(delivery_id id) const { return pending_.find(id); }
  [[nodiscard]] std::size_t in_flight() const { return pending_.size(); }
  [[nodiscard]] std::size_t parked() const { return gate_.parked(); }
  // Counters the policy keeps itself (core/delivery/delivery_counters.hpp); the shell
  // publishes them.
  [[nodiscard]] const delivery_counts& counts() const { return counters_; }
  // The route is flagged: its latest answer was the SSRF guard refusing the endpoint.
  [[nodiscard]] bool endpoint_blocked() const { return flags_.blocked(); }
  // The adaptive limit of attempts in flight; 0 when the route has none.
  [[nodiscard]] int concurrency_limit() const { return gate_.concurrency_limit(); }
  // Attempts posted and not answered yet, and attempts waiting for the adaptive limit.
  [[nodiscard]] std::size_t attempts_out() const { return gate_.attempts_out(); }
  [[nodiscard]] std::size_t waiting_for_limit() const { return gate_.waiting_for_limit(); }
  // The route is flagged: the receiver answered 410 Gone and no 2xx came since.
  [[nodiscard]] bool endpoint_gone() const { return flags_.gone(); }
  // Attempts waiting for a token of the rate limit, and for the route's first credentials.
  [[nodiscard]] std::size_t waiting_for_rate() const { return gate_.waiting_for_rate(); }
  [[nodiscard]] std::size_t waiting_for_credentials() const {
    return gate_.waiting_for_credentials();
  }
  // The requests a second this instance may send now (its share of the quota); 0: no limit.
  [[nodiscard]] double rate_limit() const { return gate_.rate_limit(); }

 private:
  // -- the attempt cycle --
  void try_attempt(delivery_id id, time_point now, actions& out);
  void attempt(delivery_id id, delivery& d, time_point now, actions& out);
  void post(delivery_id id, delivery& d, bool probe_begins, time_point now, actions& out);
  [[nodiscard]] attempt_kind kind_of(const delivery& d) const;
  actions answer(const attempt_answer& a, time_point now);
  void flag_endpoint(const attempt_answer& a, answer_verdict verdict, actions& out);
  bool refresh_on_401(delivery_id id, delivery& d, time_point now, actions& out);
  void on_retriable(delivery_id id, delivery& d, const attempt_answer& a,
                    const std::string& error_class, time_point now, actions& out);
  void refuse_retry(delivery_id id, delivery& d, const attempt_answer& a,
                    const std::string& error_class, time_point now, actions& out);
  void hold(delivery_id id, delivery& d, const attempt_answer& a, const std::string& error_class,
            time_point now, actions& out, bool gone = false);
  void give_up(delivery_id id, delivery& d, const attempt_answer& a, const std::string& error_class,
               time_point now, actions& out);
  void tell_breaker(bool success, const delivery& d, actions& out, bool gone = false,
                    std::chrono::milliseconds retry_after = std::chrono::milliseconds{0},
                    breaker_failure why = {});
  void tell_breaker_failure(const delivery& d, const attempt_answer& a,
                            const std::string& error_class, time_point now, actions& out,
                            bool gone = false);

  // -- moving on --
  // Delivered with receipts on: the receipt goes to the receipts topic, and the outcome to the
  // consumer once the broker acknowledged it.
  void write_receipt(delivery_id id, delivery& d, const attempt_answer& a, time_point now,
                     actions& out);
  void route_onward(delivery_id id, delivery& d, bool permanent, const std::string& error_class,
                    const attempt_answer& a, time_point now, actions& out,
                    tier_step step = tier_step::next);
  // Why a record goes to the DLQ without an attempt: its error class and message.
  struct unattempted {
    const char* error_class;
    const char* message;
  };
  accepted dead_letter_unattempted(record r, unattempted why, time_point now);
  // One endpoint of several, with retry tiers: a record that may not go now waits in the last
  // tier instead of here (breaker Open, paused, busy).
  [[nodiscard]] bool parks_in_tiers() const;
  // The breaker opened: with park_while_open, what waits its backoff would be refused at its
  // next attempt, so it is parked now and leaves its route's records in flight at once.
  void park_backing_off(time_point now, actions& out);
  void park(delivery_id id, delivery& d, unattempted why, time_point now, actions& out);
  void finish(delivery_id id, delivery_end how, int status, std::string error_class, actions& out);

  attempt_policy_settings settings_;
  request_signing signing_;
  secret_redactor redactor_;
  full_jitter_backoff backoff_;
  answer_judge judge_;
  attempt_gate gate_;
  endpoint_flags flags_;
  pending_deliveries pending_;
  delivery_counts counters_;
  bool operator_paused_ = false;
};

}  // namespace courier
