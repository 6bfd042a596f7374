#include "core/delivery/attempt_policy.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/actions.hpp"

#include "core/model/idempotency_key.hpp"
#include "core/retry/receipt.hpp"
#include "core/retry/retry_headers.hpp"

namespace courier {
namespace {

using namespace std::chrono_literals;
using testing::all_of;
using testing::has;
using testing::only;
using policy = attempt_policy;

const std::string source = "brew.shipments.v1";
const policy::time_point t0 = policy::time_point{std::chrono::seconds{1'800'000'000}};

attempt_policy_settings test_settings() {
  attempt_policy_settings s;
  s.route = "shipments";
  s.topics = route_topics_named(source, {5s, 30s}, "");
  s.signing.hmac_secret = "secret";
  // With the uniform source at the top of [0, 1), every delay is its ceiling: 100, 200, 400 ms.
  s.backoff = backoff_policy{100ms, 2.0, 1000ms, /*max_attempts=*/3, /*max_retry_after=*/5000ms};
  s.judge = answer_judge_settings{{401, 403}, /*trip_on_permanent_run=*/3};
  return s;
}

policy make_policy(attempt_policy_settings s = test_settings()) {
  return policy{std::move(s), [] { return 0.999999999; }};
}

record make_record(std::int64_t offset, std::string topic = source, std::int32_t partition = 0) {
  record r;
  r.topic = std::move(topic);
  r.partition = partition;
  r.offset = offset;
  r.key = "key-" + std::to_string(offset);
  r.value = R"({"n":)" + std::to_string(offset) + "}";
  return r;
}

attempt_answer answer(delivery_id id, int status,
                      transport_error transport = transport_error::none) {
  attempt_answer a;
  a.id = id;
  a.status = status;
  a.transport = transport;
  a.body = "the receiver's body";
  return a;
}

// What a list of actions does, by kind, in order: "permit post" etc.
std::string kinds(const policy::actions& todo) {
  std::string out;
  for (const auto& a : todo) {
    static const char* const names[] = {"permit", "post", "retry", "breaker", "onward",
                                        "report", "log",  "token", "refresh"};
    if (!out.empty()) {
      out += ' ';
    }
    out += names[a.index()];
  }
  return out;
}

std::string header_of(const record& r, std::string_view name) {
  const auto v = find_header(r.headers, name);
  return v ? std::string{*v} : std::string{"<absent>"};
}

// A record accepted and given its first attempt with a permit of `generation`.
delivery_id start(policy& p, record r, std::uint64_t generation = 1) {
  auto in = p.on_record(std::move(r), t0);
  EXPECT_EQ(kinds(in.todo), "permit");
  EXPECT_EQ(kinds(p.on_permit(in.id, breaker_permit{true, false, generation}, t0)), "post");
  return in.id;
}

// The backoff of `id` ran out and the breaker granted the next attempt.
void next_attempt(policy& p, delivery_id id, std::uint64_t generation = 1) {
  EXPECT_EQ(kinds(p.on_retry_due(id, t0)), "permit");
  EXPECT_EQ(kinds(p.on_permit(id, breaker_permit{true, false, generation}, t0)), "post");
}

// -- delivered ----------------------------------------------------------------------------------

TEST(AttemptPolicy, DeliversOnTheFirstTryAndReportsItOnce) {
  auto p = make_policy();
  auto in = p.on_record(make_record(7), t0);
  ASSERT_EQ(kinds(in.todo), "permit");
  EXPECT_EQ(only<policy::request_permit>(in.todo).id, in.id);
  EXPECT_EQ(p.in_flight(), 1U);

  const auto posted = p.on_permit(in.id, breaker_permit{true, false, 4}, t0);
  const auto post = only<policy::post_attempt>(posted);
  EXPECT_EQ(post.id, in.id);
  EXPECT_EQ(post.request.body, R"({"n":7})");
  const auto& hs = post.request.headers;
  EXPECT_NE(std::find(hs.begin(), hs.end(),
                      std::pair<std::string, std::string>{"Idempotency-Key", source + ":0:7"}),
            hs.end());

  const auto done = p.on_answer(answer(in.id, 200), t0);
  ASSERT_EQ(kinds(done), "breaker report");
  const auto b = only<policy::breaker_outcome>(done);
  EXPECT_TRUE(b.success);
  EXPECT_FALSE(b.probe);
  EXPECT_EQ(b.generation, 4U);
  const auto r = only<policy::report_outcome>(done);
  EXPECT_EQ(r.id, in.id);
  EXPECT_EQ(r.outcome.record.topic, source);
  EXPECT_EQ(r.outcome.record.offset, 7);
  EXPECT_EQ(r.outcome.end, delivery_end::delivered);
  EXPECT_EQ(r.outcome.attempts, 1);
  EXPECT_EQ(r.outcome.status, 200);
  EXPECT_EQ(p.in_flight(), 0U);
  EXPECT_EQ(p.counts()[delivery_counter::delivered], 1U);
  EXPECT_EQ(p.counts()[delivery_counter::attempts], 1U);
}

// routes[].receipts_topic: a 2xx writes the record's receipt through the onward producer, and
// the record is reported delivered (its offset may be committed) only once the broker has it.
TEST(AttemptPolicy, WithReceiptsADeliveryIsReportedOnceItsReceiptIsWritten) {
  auto settings = test_settings();
  settings.topics.receipts = "brew.shipments.receipts";
  settings.instance = "courier-1:42";
  auto p = make_policy(settings);
  const auto id = start(p, make_record(7));
  EXPECT_EQ(kinds(p.on_answer(answer(id, 503), t0)), "log retry");
  next_attempt(p, id);
  auto ok = answer(id, 202);
  ok.response_headers = {{"X-Request-Id", "req-9"}};
  const auto done = p.on_answer(ok, t0 + 2s);
  ASSERT_EQ(kinds(done), "breaker onward") << "the breaker hears of the 2xx at once";
  EXPECT_TRUE(only<policy::breaker_outcome>(done).success);
  const auto onward = only<policy::produce_onward>(done);
  EXPECT_EQ(onward.to.what, destination::kind::receipt);
  EXPECT_EQ(onward.onward.produce.topic, "brew.shipments.receipts");
  EXPECT_EQ(onward.onward.produce.partition, 0);
  EXPECT_EQ(onward.onward.produce.key, std::optional<std::string>{source + ":0:7"})
      << "keyed by the idempotency key";
  const auto r = decode_receipt(std::string{onward.onward.produce.value.view()});
  EXPECT_EQ(r.route, "shipments");
  EXPECT_EQ(r.origin, (record_position{source, 0, 7}));
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.status, 202);
  EXPECT_EQ(r.first_attempt_ms, 1'800'000'000'000);
  EXPECT_EQ(r.delivered_ms, 1'800'000'002'000);
  EXPECT_EQ(r.response_headers,
            (std::vector<std::pair<std::string, std::string>>{{"X-Request-Id", "req-9"}}));
  EXPECT_EQ(r.instance, "courier-1:42");
  EXPECT_EQ(p.in_flight(), 1U) << "pending until the receipt is acknowledged";
  EXPECT_EQ(p.counts()[delivery_counter::delivered], 0U);
  EXPECT_TRUE(p.on_expedite(record_position{source, 0, 7}, t0 + 2s).empty())
      << "delivered: nothing to move on";

  const auto acked = p.on_onward_acked(id);
  ASSERT_EQ(kinds(acked), "report");
  const auto report = only<policy::report_outcome>(acked);
  EXPECT_EQ(report.outcome.end, delivery_end::delivered);
  EXPECT_EQ(report.outcome.status, 202);
  EXPECT_EQ(report.outcome.attempts, 2);
  EXPECT_EQ(p.counts()[delivery_counter::delivered], 1U);
  EXPECT_EQ(p.in_flight(), 0U);
}

// A tier's copy: its receipt names where the record first appeared, every attempt it had over
// the tiers, and the time of its first failure.
TEST(AttemptPolicy, AReceiptOfATierCopyNamesItsOriginAndEveryAttempt) {
  auto settings = test_settings();
  settings.topics.receipts = "brew.shipments.receipts";
  auto p = make_policy(settings);
  auto copy = make_record(3, source + ".retry-30s", 0);
  copy.headers = {{std::string{idempotency_key_header}, source + ":0:41"},
                  {std::string{origin_topic_header}, source},
                  {std::string{origin_partition_header}, "0"},
                  {std::string{origin_offset_header}, "41"},
                  {std::string{attempts_header}, "4"},
                  {std::string{first_failure_header}, "1799999990000"}};
  const auto id = start(p, copy);
  const auto onward = only<policy::produce_onward>(p.on_answer(answer(id, 200), t0));
  EXPECT_EQ(onward.onward.produce.key, std::optional<std::string>{source + ":0:41"});
  const auto r = decode_receipt(std::string{onward.onward.produce.value.view()});
  EXPECT_EQ(r.origin, (record_position{source, 0, 41}));
  EXPECT_EQ(r.attempts, 5);
  EXPECT_EQ(r.first_attempt_ms, 1'799'999'990'000);
  EXPECT_TRUE(r.response_headers.empty());
}

TEST(AttemptPolicy, AReceiptsAttemptsStopAtTheLargestIntInsteadOfOverflowing) {
  auto settings = test_settings();
  settings.topics.receipts = "brew.shipments.receipts";
  auto p = make_policy(settings);
  auto copy = make_record(3, source + ".retry-30s", 0);
  copy.headers = {{std::string{origin_topic_header}, source},
                  {std::string{origin_partition_header}, "0"},
                  {std::string{origin_offset_header}, "41"},
                  {std::string{attempts_header}, "2147483647"}};
  const auto id = start(p, copy);
  const auto onward = only<policy::produce_onward>(p.on_answer(answer(id, 200), t0));
  EXPECT_EQ(decode_receipt(std::string{onward.onward.produce.value.view()}).attempts, 2147483647);
}

TEST(AttemptPolicy, RetriesARetriableAnswerAfterItsBackoffThenDelivers) {
  auto p = make_policy();
  const auto id = start(p, make_record(1));
  const auto failed = p.on_answer(answer(id, 503), t0);
  ASSERT_EQ(kinds(failed), "log retry") << "no breaker event for one attempt of a delivery";
  EXPECT_EQ(only<policy::schedule_retry>(failed).delay, 100ms);
  EXPECT_TRUE(p.find(id)->in_backoff());

  next_attempt(p, id);
  const auto failed_again = p.on_answer(answer(id, 0, transport_error::timeout), t0);
  EXPECT_EQ(only<policy::schedule_retry>(failed_again).delay, 200ms);

  next_attempt(p, id);
  const auto done = p.on_answer(answer(id, 204), t0);
  ASSERT_EQ(kinds(done), "breaker report");
  EXPECT_TRUE(only<policy::breaker_outcome>(done).success);
  EXPECT_EQ(only<policy::report_outcome>(done).outcome.attempts, 3);
  EXPECT_EQ(p.counts()[delivery_counter::retries], 2U);
  EXPECT_EQ(p.counts()[delivery_counter::attempts], 3U);
}

std::string header_in(const http::request& req, const std::string& name) {
  for (const auto& [k, v] : req.headers) {
    if (k == name) {
      return v;
    }
  }
  return "<absent>";
}

// Standard Webhooks: a retry is a new attempt with the same webhook-id, its own
// webhook-timestamp (the time of the event that sent it) and a signature over that timestamp.
TEST(AttemptPolicy, EveryAttemptIsSignedAfreshWithTheTimeOfTheEventThatSendsIt) {
  auto s = test_settings();
  s.signing.standard_webhooks_secrets = {"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"};
  auto p = make_policy(s);
  auto in = p.on_record(make_record(1), t0);
  const auto first =
      only<policy::post_attempt>(p.on_permit(in.id, breaker_permit{true, false, 1}, t0)).request;
  p.on_answer(answer(in.id, 503), t0 + 1s);
  EXPECT_EQ(kinds(p.on_retry_due(in.id, t0 + 2s)), "permit");
  const auto second =
      only<policy::post_attempt>(p.on_permit(in.id, breaker_permit{true, false, 1}, t0 + 3s))
          .request;

  EXPECT_EQ(header_in(first, "webhook-timestamp"), "1800000000");
  EXPECT_EQ(header_in(second, "webhook-timestamp"), "1800000003");
  EXPECT_EQ(header_in(first, "webhook-id"), "brew%2Eshipments%2Ev1:0:1");
  EXPECT_EQ(header_in(second, "webhook-id"), header_in(first, "webhook-id"));
  EXPECT_NE(header_in(second, "webhook-signature"), header_in(first, "webhook-signature"));
  const standard_webhooks_signer receiver{s.signing.standard_webhooks_secrets};
  EXPECT_EQ(receiver.verify(header_in(second, "webhook-id"), header_in(second, "webhook-timestamp"),
                            header_in(second, "webhook-signature"), second.body, 1'800'000'003),
            standard_webhooks_signer::verdict::verified);
  EXPECT_EQ(header_in(second, "X-Signature"), header_in(first, "X-Signature"))
      << "X-Signature covers the body only";
}

TEST(AttemptPolicy, HonoursTheReceiversRetryAfterUpToItsClamp) {
  auto p = make_policy();
  const auto id = start(p, make_record(1));
  auto a = answer(id, 429);
  a.retry_after = "2";
  EXPECT_EQ(only<policy::schedule_retry>(p.on_answer(a, t0)).delay, 2000ms);
  next_attempt(p, id);
  a.retry_after = "3600";
  EXPECT_EQ(only<policy::schedule_retry>(p.on_answer(a, t0)).delay, 5000ms);
}

// The record's own retries stay within the clamp; the breaker hears the whole Retry-After, so an
// Open it leads to lasts what the receiver asked for (breaker::on_failure caps it).
TEST(AttemptPolicy, AFailedDeliveryTellsTheBreakerTheReceiversWholeRetryAfter) {
  auto p = make_policy();
  const auto id = start(p, make_record(1));
  auto a = answer(id, 503);
  a.retry_after = "3600";
  p.on_answer(a, t0);
  next_attempt(p, id);
  p.on_answer(a, t0);
  next_attempt(p, id);
  const auto last = p.on_answer(a, t0);
  ASSERT_EQ(kinds(last), "breaker log onward");
  EXPECT_EQ(only<policy::breaker_outcome>(last).retry_after, 3'600'000ms);
}

// The breaker's Open names the failure that opened it, as the tier record's headers do.
TEST(AttemptPolicy, AFailedDeliveryTellsTheBreakerItsErrorClassAndMessage) {
  auto p = make_policy();
  const auto id = start(p, make_record(1));
  auto a = answer(id, 0, transport_error::tls);
  a.error_message = "certificate verify failed: unable to get local issuer certificate";
  p.on_answer(a, t0);
  next_attempt(p, id);
  p.on_answer(a, t0);
  next_attempt(p, id);
  const auto last = p.on_answer(a, t0);
  ASSERT_EQ(kinds(last), "breaker log onward");
  const auto b = only<policy::breaker_outcome>(last);
  EXPECT_EQ(b.why.error_class, "tls");
  EXPECT_EQ(b.why.message, a.error_message);
  EXPECT_EQ(header_of(only<policy::produce_onward>(last).onward.produce, error_class_header),
            b.why.error_class);
}

// -- moving on ------------------------------------------------------------------------------------

TEST(AttemptPolicy, ExhaustedRetriesAreOneFailedBreakerEventAndMoveToTheFirstTier) {
  auto p = make_policy();
  const auto id = start(p, make_record(3));
  p.on_answer(answer(id, 503), t0);
  next_attempt(p, id);
  p.on_answer(answer(id, 503), t0);
  next_attempt(p, id);
  const auto last = p.on_answer(answer(id, 503), t0);
  ASSERT_EQ(kinds(last), "breaker log onward");
  EXPECT_FALSE(only<policy::breaker_outcome>(last).success);
  EXPECT_EQ(only<policy::breaker_outcome>(last).retry_after, 0ms) << "none asked for";
  const auto onward = only<policy::produce_onward>(last);
  EXPECT_EQ(onward.id, id);
  EXPECT_EQ(onward.to.what, destination::kind::tier);
  EXPECT_EQ(onward.to.tier_index, 0);
  EXPECT_EQ(onward.onward.produce.topic, source + ".retry-5s");
  EXPECT_EQ(onward.onward.produce.partition, 0);
  EXPECT_EQ(onward.onward.produce.key, std::optional<std::string>{"key-3"});
  EXPECT_EQ(onward.onward.produce.value, R"({"n":3})");
  EXPECT_EQ(header_of(onward.onward.produce, attempts_header), "3");
  EXPECT_EQ(header_of(onward.onward.produce, retry_tier_header), "0");
  EXPECT_EQ(header_of(onward.onward.produce, error_class_header), "http_503");
  EXPECT_EQ(header_of(onward.onward.produce, idempotency_key_header), source + ":0:3");
  EXPECT_EQ(p.counts()[delivery_counter::exhausted], 1U);
  EXPECT_EQ(kinds(p.on_retry_due(id, t0)), "") << "no attempt once it is moving on";

  EXPECT_TRUE(all_of<policy::report_outcome>(last).empty()) << "reported only once acked";
  const auto acked = p.on_onward_acked(id);
  ASSERT_EQ(kinds(acked), "report");
  const auto r = only<policy::report_outcome>(acked);
  EXPECT_EQ(r.outcome.end, delivery_end::retried);
  EXPECT_EQ(r.outcome.attempts, 3);
  EXPECT_EQ(r.outcome.status, 503);
  EXPECT_EQ(r.outcome.error_class, "http_503");
  EXPECT_EQ(p.counts()[delivery_counter::retried], 1U);
  EXPECT_EQ(p.in_flight(), 0U);
}

TEST(AttemptPolicy, ARecordFromATierMovesToTheNextAndFromTheLastTierToTheDlq) {
  auto p = make_policy([] {
    auto s = test_settings();
    s.backoff.max_attempts = 1;
    return s;
  }());
  const auto from_first = start(p, make_record(1, source + ".retry-5s"));
  EXPECT_EQ(
      only<policy::produce_onward>(p.on_answer(answer(from_first, 500), t0)).onward.produce.topic,
      source + ".retry-30s");

  const auto from_last = start(p, make_record(2, source + ".retry-30s"));
  const auto onward = only<policy::produce_onward>(p.on_answer(answer(from_last, 500), t0));
  EXPECT_EQ(onward.to.what, destination::kind::dlq);
  EXPECT_EQ(onward.onward.produce.topic, "brew.shipments.dlq");
  const auto acked = p.on_onward_acked(from_last);
  EXPECT_EQ(only<policy::report_outcome>(acked).outcome.end, delivery_end::dead_lettered);
  EXPECT_EQ(p.counts()[delivery_counter::dead_lettered], 1U);
}

TEST(AttemptPolicy, APermanentAnswerGoesStraightToTheDlqAndIsASuccessForTheBreaker) {
  auto settings = test_settings();
  settings.topics.dlq = "shipments.parked";
  auto p = make_policy(settings);
  const auto id = start(p, make_record(5), /*generation=*/2);
  const auto rejected = p.on_answer(answer(id, 422), t0);
  ASSERT_EQ(kinds(rejected), "breaker log onward");
  const auto b = only<policy::breaker_outcome>(rejected);
  EXPECT_TRUE(b.success) << "the receiver answered: it is up";
  EXPECT_EQ(b.generation, 2U);
  const auto onward = only<policy::produce_onward>(rejected);
  EXPECT_EQ(onward.onward.produce.topic, "shipments.parked");
  EXPECT_EQ(header_of(onward.onward.produce, error_class_header), "http_4xx");
  EXPECT_EQ(header_of(onward.onward.produce, error_status_header), "422");
  EXPECT_EQ(p.counts()[delivery_counter::permanent], 1U);
  const auto line = only<policy::log_line>(rejected);
  EXPECT_EQ(line.event, "record dead-lettered");
  EXPECT_TRUE(line.per_record) << "a line per record: the shell samples it";
  const auto r = only<policy::report_outcome>(p.on_onward_acked(id));
  EXPECT_EQ(r.outcome.end, delivery_end::dead_lettered);
  EXPECT_EQ(r.outcome.attempts, 1);
  EXPECT_EQ(r.outcome.status, 422);
}

// ordering.on_dead_letter "park": a record behind a dead-lettered one of its key goes to the DLQ
// unattempted, nothing asked of the breaker, and is reported dead-lettered once acknowledged.
TEST(AttemptPolicy, AParkedRecordGoesToTheDlqUnattempted) {
  auto p = make_policy();
  auto accepted = p.on_parked_record(make_record(6), t0);
  ASSERT_EQ(kinds(accepted.todo), "log onward");
  const auto onward = only<policy::produce_onward>(accepted.todo);
  EXPECT_EQ(onward.to.what, destination::kind::dlq);
  EXPECT_EQ(header_of(onward.onward.produce, error_class_header), "key_parked");
  EXPECT_EQ(header_of(onward.onward.produce, attempts_header), "0");
  EXPECT_NE(
      header_of(onward.onward.produce, error_message_header).find("earlier record of its key"),
      std::string::npos);
  const auto r = only<policy::report_outcome>(p.on_onward_acked(accepted.id));
  EXPECT_EQ(r.outcome.end, delivery_end::dead_lettered);
  EXPECT_EQ(r.outcome.attempts, 0);
  EXPECT_EQ(p.counts()[delivery_counter::dead_lettered], 1U);
}

// -- endpoint failures
// ------------------------------------------------------------------------------

TEST(AttemptPolicy, UnauthorizedHoldsTheRecordWithoutCountingItsAttemptsAndNeverDeadLetters) {
  auto p = make_policy();
  const auto id = start(p, make_record(9), /*generation=*/6);
  for (int held = 1; held <= 6; ++held) {
    const auto refused = p.on_answer(answer(id, 401), t0);
    ASSERT_EQ(kinds(refused), "breaker log retry") << "held " << held;
    const auto b = only<policy::breaker_outcome>(refused);
    EXPECT_FALSE(b.success);
    EXPECT_EQ(b.generation, 6U + static_cast<std::uint64_t>(held) - 1);
    EXPECT_EQ(p.find(id)->attempts, 0);
    EXPECT_EQ(p.find(id)->held_attempts, held);
    next_attempt(p, id, 6U + static_cast<std::uint64_t>(held));
  }
  EXPECT_EQ(p.counts()[delivery_counter::endpoint_failures], 6U);
  const auto done = p.on_answer(answer(id, 200), t0);
  ASSERT_EQ(kinds(done), "breaker report");
  EXPECT_EQ(only<policy::report_outcome>(done).outcome.attempts, 7)
      << "all attempts, held ones too";
}

TEST(AttemptPolicy, AnSsrfRefusalHoldsTheRecordAndFlagsTheRouteOnceUntilAnAnswerGetsThrough) {
  auto p = make_policy();
  const auto first = start(p, make_record(1));
  const auto second = start(p, make_record(2));
  auto refused = answer(first, 0, transport_error::ssrf_blocked);
  refused.error_message = "refused to connect to http://partner.example/: 127.0.0.1 (loopback)";
  const auto flagged = p.on_answer(refused, t0);
  ASSERT_EQ(kinds(flagged), "log breaker log retry");
  const auto flag = all_of<policy::log_line>(flagged).front();
  EXPECT_EQ(flag.level, policy::log_level::error);
  EXPECT_NE(flag.event.find("SSRF"), std::string::npos) << flag.event;
  EXPECT_FALSE(flag.per_record) << "once per route: never sampled";
  const auto held = all_of<policy::log_line>(flagged).back();
  EXPECT_EQ(held.event, "delivery held: the endpoint refused it");
  EXPECT_TRUE(held.per_record);
  EXPECT_FALSE(only<policy::breaker_outcome>(flagged).success);
  EXPECT_TRUE(p.endpoint_blocked());

  refused.id = second;
  EXPECT_EQ(kinds(p.on_answer(refused, t0)), "breaker log retry") << "flagged once";
  EXPECT_EQ(p.counts()[delivery_counter::ssrf_blocked], 2U);
  EXPECT_EQ(p.counts()[delivery_counter::endpoint_failures], 2U);
  EXPECT_EQ(p.counts()[delivery_counter::permanent], 0U);
  EXPECT_EQ(p.find(first)->attempts, 0) << "held attempts are not the record's attempts";

  next_attempt(p, first);
  const auto through = p.on_answer(answer(first, 200), t0);
  EXPECT_EQ(kinds(through), "log breaker report");
  EXPECT_FALSE(p.endpoint_blocked());
}

TEST(AttemptPolicy, GoneHoldsTheRecordTellsTheBreakerAndFlagsTheRouteUntilA2xx) {
  auto p = make_policy();
  const auto first = start(p, make_record(1));
  const auto second = start(p, make_record(2));
  const auto flagged = p.on_answer(answer(first, 410), t0);
  ASSERT_EQ(kinds(flagged), "log breaker log retry");
  const auto flag = all_of<policy::log_line>(flagged).front();
  EXPECT_EQ(flag.level, policy::log_level::error);
  EXPECT_NE(flag.event.find("410 Gone"), std::string::npos) << flag.event;
  EXPECT_FALSE(flag.per_record);
  const auto b = only<policy::breaker_outcome>(flagged);
  EXPECT_FALSE(b.success);
  EXPECT_TRUE(b.gone);
  EXPECT_TRUE(p.endpoint_gone());

  const auto again = p.on_answer(answer(second, 410), t0);
  EXPECT_EQ(kinds(again), "breaker log retry") << "flagged once";
  EXPECT_TRUE(only<policy::breaker_outcome>(again).gone);
  EXPECT_EQ(p.counts()[delivery_counter::gone], 2U);
  EXPECT_EQ(p.counts()[delivery_counter::endpoint_failures], 2U);
  EXPECT_EQ(p.counts()[delivery_counter::permanent], 0U);
  EXPECT_EQ(p.counts()[delivery_counter::dead_lettered], 0U);
  EXPECT_FALSE(has<policy::produce_onward>(flagged)) << "never dead-lettered";
  EXPECT_EQ(p.find(first)->attempts, 0) << "held attempts are not the record's attempts";

  // A 503 in between neither clears nor repeats the flag.
  next_attempt(p, second);
  (void)p.on_answer(answer(second, 503), t0);
  EXPECT_TRUE(p.endpoint_gone());

  next_attempt(p, first);
  const auto through = p.on_answer(answer(first, 200), t0);
  EXPECT_EQ(kinds(through), "log breaker report");
  EXPECT_FALSE(p.endpoint_gone());
}

TEST(AttemptPolicy, AGoneProbeIsHeldNotDeadLettered) {
  auto p = make_policy();
  (void)p.on_breaker_change(breaker_state::half_open, 9, t0);
  const auto id = p.on_record(make_record(1), t0).id;
  ASSERT_EQ(kinds(p.on_permit(id, breaker_permit{true, /*probe=*/true, 9}, t0)), "post");
  const auto refused = p.on_answer(answer(id, 410), t0);
  EXPECT_FALSE(has<policy::produce_onward>(refused));
  const auto b = only<policy::breaker_outcome>(refused);
  EXPECT_TRUE(b.probe);
  EXPECT_TRUE(b.gone);
  ASSERT_NE(p.find(id), nullptr);
}

TEST(AttemptPolicy, HeldRecordsBackOffByTheirHeldAttempts) {
  auto p = make_policy();
  const auto id = start(p, make_record(9));
  EXPECT_EQ(only<policy::schedule_retry>(p.on_answer(answer(id, 403), t0)).delay, 100ms);
  next_attempt(p, id);
  EXPECT_EQ(only<policy::schedule_retry>(p.on_answer(answer(id, 403), t0)).delay, 200ms);
}

TEST(AttemptPolicy, ARunOfPermanentAnswersAcrossRecordsBecomesAnEndpointFailure) {
  auto p = make_policy();  // trip_on_permanent_run = 3
  const auto a = start(p, make_record(1));
  const auto b = start(p, make_record(2));
  const auto c = start(p, make_record(3));
  EXPECT_TRUE(has<policy::produce_onward>(p.on_answer(answer(a, 400), t0)));
  EXPECT_TRUE(has<policy::produce_onward>(p.on_answer(answer(b, 400), t0)));
  const auto third = p.on_answer(answer(c, 400), t0);
  ASSERT_EQ(kinds(third), "breaker log retry") << "held, not dead-lettered";
  EXPECT_FALSE(only<policy::breaker_outcome>(third).success);
  EXPECT_EQ(p.find(c)->held_attempts, 1);
}

// -- the breaker ----------------------------------------------------------------------------------

TEST(AttemptPolicy, ADeniedPermitParksTheRecordUntilTheBreakerLeavesOpen) {
  auto p = make_policy();
  auto in = p.on_record(make_record(1), t0);
  EXPECT_EQ(kinds(p.on_permit(in.id, breaker_permit{false, false, 3}, t0)), "");
  EXPECT_EQ(p.parked(), 1U);
  EXPECT_EQ(p.find(in.id)->attempts, 0) << "parked records spend nothing";
  EXPECT_EQ(kinds(p.on_breaker_change(breaker_state::open, 11, t0)), "");
  EXPECT_EQ(p.parked(), 1U);

  const auto half_open = p.on_breaker_change(breaker_state::half_open, 12, t0);
  ASSERT_EQ(kinds(half_open), "permit");
  EXPECT_EQ(only<policy::request_permit>(half_open).id, in.id);
  EXPECT_EQ(p.parked(), 0U);

  EXPECT_EQ(kinds(p.on_permit(in.id, breaker_permit{false, false, 4}, t0)), "");
  const auto closed = p.on_breaker_change(breaker_state::closed, 13, t0);
  EXPECT_EQ(kinds(closed), "post") << "a Closed breaker grants every attempt: no permit asked";
  EXPECT_EQ(p.find(in.id)->ticket.breaker_generation, 13U);
}

TEST(AttemptPolicy, AnEndpointOfSeveralParksADeniedRecordInTheLastTierUnattempted) {
  auto s = test_settings();
  s.park_while_open = true;
  auto p = make_policy(s);
  auto in = p.on_record(make_record(1), t0);
  const auto denied = p.on_permit(in.id, breaker_permit{false, false, 3}, t0);
  ASSERT_EQ(kinds(denied), "log onward") << "it does not wait here, holding its partition";
  const auto onward = only<policy::produce_onward>(denied);
  EXPECT_EQ(onward.onward.produce.topic, source + ".retry-30s") << "the last tier, at once";
  EXPECT_EQ(header_of(onward.onward.produce, error_class_header), "breaker_open");
  EXPECT_EQ(header_of(onward.onward.produce, attempts_header), "0");
  EXPECT_EQ(p.parked(), 0U);
  const auto r = only<policy::report_outcome>(p.on_onward_acked(in.id));
  EXPECT_EQ(r.outcome.end, delivery_end::retried);
  EXPECT_EQ(r.outcome.attempts, 0);
  EXPECT_EQ(kinds(p.on_breaker_change(breaker_state::half_open, 12, t0)), "")
      << "nothing is left to come back";
}

TEST(AttemptPolicy, WhenTheBreakerOpensAnEndpointOfSeveralParksWhatWaitsItsBackoffAtOnce) {
  auto s = test_settings();
  s.park_while_open = true;
  auto p = make_policy(s);
  const auto failed = start(p, make_record(1));
  ASSERT_EQ(kinds(p.on_answer(answer(failed, 503), t0)), "log retry");
  const auto flying = start(p, make_record(2));
  const auto opened = p.on_breaker_change(breaker_state::open, 4, t0);
  ASSERT_EQ(kinds(opened), "log onward")
      << "the record backing off leaves now, not when its backoff ends; the one in flight stays";
  const auto onward = only<policy::produce_onward>(opened);
  EXPECT_EQ(onward.onward.produce.topic, source + ".retry-30s");
  EXPECT_EQ(header_of(onward.onward.produce, error_class_header), "breaker_open");
  EXPECT_EQ(header_of(onward.onward.produce, attempts_header), "1");
  EXPECT_EQ(kinds(p.on_retry_due(failed, t0)), "") << "its backoff's timer finds it moving on";
  EXPECT_EQ(only<policy::report_outcome>(p.on_onward_acked(failed)).outcome.end,
            delivery_end::retried);
  EXPECT_NE(p.find(flying), nullptr);
}

// A record parked in the last tier for its endpoint's outage becomes the Half-Open probe and
// fails: the endpoint is still down, so it is parked again, not dead-lettered for the outage.
TEST(AttemptPolicy, AnEndpointOfSeveralParksAFailedProbeAgainInsteadOfDeadLetteringIt) {
  auto s = test_settings();
  s.park_while_open = true;
  s.backoff.max_attempts = 1;
  auto p = make_policy(s);
  auto in = p.on_record(make_record(1, source + ".retry-30s"), t0);
  ASSERT_EQ(kinds(p.on_permit(in.id, breaker_permit{true, /*probe=*/true, 7}, t0)), "post");
  const auto failed = p.on_answer(answer(in.id, 503), t0);
  EXPECT_FALSE(only<policy::breaker_outcome>(failed).success) << "the breaker hears of it";
  const auto onward = only<policy::produce_onward>(failed);
  EXPECT_EQ(onward.to.what, destination::kind::tier);
  EXPECT_EQ(onward.onward.produce.topic, source + ".retry-30s");
  EXPECT_EQ(header_of(onward.onward.produce, error_class_header), "breaker_open");
  EXPECT_EQ(only<policy::report_outcome>(p.on_onward_acked(in.id)).outcome.end,
            delivery_end::retried);
  EXPECT_EQ(p.counts()[delivery_counter::dead_lettered], 0U);

  // Not a probe: the last tier's failure goes to the DLQ as before.
  const auto plain = start(p, make_record(2, source + ".retry-30s"));
  EXPECT_EQ(only<policy::produce_onward>(p.on_answer(answer(plain, 503), t0)).to.what,
            destination::kind::dlq);
}

TEST(AttemptPolicy, WhenTheBreakerOpensAOneEndpointRouteKeepsItsRecordsBackingOffHere) {
  auto p = make_policy();
  const auto failed = start(p, make_record(1));
  ASSERT_EQ(kinds(p.on_answer(answer(failed, 503), t0)), "log retry");
  EXPECT_EQ(kinds(p.on_breaker_change(breaker_state::open, 4, t0)), "")
      << "nothing moves to a tier while the breaker is Open (DESIGN.md section 2)";
}

TEST(AttemptPolicy, APausedEndpointParksItsNextAttemptsInTheLastTierUntilResumed) {
  auto s = test_settings();
  s.park_while_open = true;
  auto p = make_policy(s);
  p.set_operator_paused(true);
  auto in = p.on_record(make_record(1), t0);
  const auto onward = only<policy::produce_onward>(in.todo);
  EXPECT_EQ(onward.onward.produce.topic, source + ".retry-30s");
  EXPECT_EQ(header_of(onward.onward.produce, error_class_header), "endpoint_paused");
  p.set_operator_paused(false);
  EXPECT_EQ(kinds(p.on_record(make_record(2), t0).todo), "permit") << "resumed: attempts go";
}

TEST(AttemptPolicy, ARecordOverTheEndpointsShareWaitsInTheLastTierWhileTheOthersGoOn) {
  auto s = test_settings();
  s.park_while_open = true;
  s.max_pending = 2;
  auto p = make_policy(s);
  const auto first = start(p, make_record(1));
  start(p, make_record(2));
  auto third = p.on_record(make_record(3), t0);
  const auto onward = only<policy::produce_onward>(third.todo);
  EXPECT_EQ(onward.onward.produce.topic, source + ".retry-30s");
  EXPECT_EQ(header_of(onward.onward.produce, error_class_header), "endpoint_busy");
  EXPECT_EQ(only<policy::report_outcome>(p.on_onward_acked(third.id)).outcome.end,
            delivery_end::retried);
  p.on_answer(answer(first, 200), t0);
  EXPECT_EQ(kinds(p.on_record(make_record(4), t0).todo), "permit") << "a slot is free again";
}

TEST(AttemptPolicy, ARecordNamingNoEndpointGoesToTheDlqUnattempted) {
  auto p = make_policy();
  auto accepted = p.on_unknown_endpoint_record(make_record(6), t0);
  const auto onward = only<policy::produce_onward>(accepted.todo);
  EXPECT_EQ(onward.to.what, destination::kind::dlq);
  EXPECT_EQ(header_of(onward.onward.produce, error_class_header), "unknown_endpoint");
  EXPECT_EQ(header_of(onward.onward.produce, attempts_header), "0");
  const auto r = only<policy::report_outcome>(p.on_onward_acked(accepted.id));
  EXPECT_EQ(r.outcome.end, delivery_end::dead_lettered);
}

TEST(AttemptPolicy, WhileTheBreakerIsKnownClosedAttemptsAskNoPermitAndCarryItsGeneration) {
  auto p = make_policy();
  EXPECT_EQ(kinds(p.on_record(make_record(1), t0).todo), "permit") << "state unknown: ask";
  p.on_breaker_change(breaker_state::closed, 7, t0);
  const auto in = p.on_record(make_record(2), t0);
  ASSERT_EQ(kinds(in.todo), "post");
  const auto breaker_events = [](const policy::actions& todo) {
    return std::count_if(todo.begin(), todo.end(), [](const policy::action& a) {
      return std::holds_alternative<policy::breaker_outcome>(a);
    });
  };
  EXPECT_EQ(breaker_events(p.on_answer(answer(in.id, 200), t0)), 0)
      << "a success with no failure told since the last: nothing to reset, no message";
  const auto refused = p.on_record(make_record(5), t0);
  const auto held = p.on_answer(answer(refused.id, 401), t0);
  EXPECT_FALSE(only<policy::breaker_outcome>(held).success);
  EXPECT_EQ(only<policy::breaker_outcome>(held).generation, 7U);
  const auto after = p.on_record(make_record(6), t0);
  const auto reset = p.on_answer(answer(after.id, 200), t0);
  EXPECT_TRUE(only<policy::breaker_outcome>(reset).success) << "the success after a failure";
  const auto quiet = p.on_record(make_record(7), t0);
  EXPECT_EQ(breaker_events(p.on_answer(answer(quiet.id, 200), t0)), 0);
  p.on_breaker_change(breaker_state::open, 8, t0);
  EXPECT_EQ(kinds(p.on_record(make_record(3), t0).todo), "permit") << "Open: back to permits";
  p.on_breaker_change(breaker_state::half_open, 9, t0);
  EXPECT_EQ(kinds(p.on_record(make_record(4), t0).todo), "permit") << "Half-Open counts its probes";
}

TEST(AttemptPolicy, AProbeHoldsItsPermitForItsWholeSequenceAndStartsItAfresh) {
  auto p = make_policy();
  const auto id = start(p, make_record(1), /*generation=*/1);
  p.on_answer(answer(id, 503), t0);
  next_attempt(p, id);
  p.on_answer(answer(id, 503), t0);
  EXPECT_EQ(p.find(id)->attempts, 2);

  EXPECT_EQ(kinds(p.on_retry_due(id, t0)), "permit");
  EXPECT_EQ(kinds(p.on_permit(id, breaker_permit{true, /*probe=*/true, 8}, t0)), "post");
  EXPECT_EQ(p.find(id)->attempts, 1) << "the probe's sequence starts afresh";
  EXPECT_TRUE(p.find(id)->ticket.probe);
  p.on_answer(answer(id, 503), t0);
  const auto again = p.on_retry_due(id, t0);
  ASSERT_EQ(kinds(again), "post") << "the probe asks no new permit";
  p.on_answer(answer(id, 503), t0);
  EXPECT_EQ(kinds(p.on_retry_due(id, t0)), "post");
  const auto last = p.on_answer(answer(id, 503), t0);
  const auto b = only<policy::breaker_outcome>(last);
  EXPECT_FALSE(b.success);
  EXPECT_TRUE(b.probe);
  EXPECT_EQ(b.generation, 8U);
  EXPECT_EQ(p.find(id)->attempts, 3);
  EXPECT_EQ(header_of(only<policy::produce_onward>(last).onward.produce, attempts_header), "3");
}

TEST(AttemptPolicy, AProbeAnsweredUnauthorizedGivesUpItsPermit) {
  auto p = make_policy();
  auto in = p.on_record(make_record(1), t0);
  p.on_permit(in.id, breaker_permit{true, true, 5}, t0);
  const auto refused = p.on_answer(answer(in.id, 401), t0);
  EXPECT_TRUE(only<policy::breaker_outcome>(refused).probe);
  EXPECT_FALSE(p.find(in.id)->ticket.probe);
  EXPECT_EQ(kinds(p.on_retry_due(in.id, t0)), "permit")
      << "its next attempt asks the breaker again";
}

TEST(AttemptPolicy, EveryBreakerOutcomeCarriesTheGenerationOfItsLatestPermit) {
  auto p = make_policy();
  const auto delivered = start(p, make_record(1), 11);
  p.on_answer(answer(delivered, 503), t0);
  next_attempt(p, delivered, 12);
  EXPECT_EQ(only<policy::breaker_outcome>(p.on_answer(answer(delivered, 200), t0)).generation, 12U);

  const auto rejected = start(p, make_record(2), 13);
  EXPECT_EQ(only<policy::breaker_outcome>(p.on_answer(answer(rejected, 410), t0)).generation, 13U);

  const auto exhausted = start(p, make_record(3), 14);
  p.on_answer(answer(exhausted, 503), t0);
  next_attempt(p, exhausted, 15);
  p.on_answer(answer(exhausted, 503), t0);
  next_attempt(p, exhausted, 16);
  EXPECT_EQ(only<policy::breaker_outcome>(p.on_answer(answer(exhausted, 503), t0)).generation, 16U);
}

// -- the head-of-line bound -----------------------------------------------------------------------

TEST(AttemptPolicy, ExpediteMovesARecordWaitingInItsBackoffOnAtOnce) {
  auto p = make_policy();
  const auto other = start(p, make_record(4, source, /*partition=*/1));
  const auto id = start(p, make_record(4, source, /*partition=*/0));
  p.on_answer(answer(other, 503), t0);
  p.on_answer(answer(id, 503), t0);
  const auto moved = p.on_expedite({source, 0, 4}, t0);
  ASSERT_EQ(kinds(moved), "log breaker log onward");
  EXPECT_FALSE(only<policy::breaker_outcome>(moved).success);
  const auto onward = only<policy::produce_onward>(moved);
  EXPECT_EQ(onward.id, id) << "the record at those coordinates, not its neighbour";
  EXPECT_EQ(onward.onward.produce.topic, source + ".retry-5s");
  EXPECT_EQ(header_of(onward.onward.produce, error_class_header), "http_503");
  EXPECT_EQ(p.counts()[delivery_counter::head_of_line_moves], 1U);
  EXPECT_EQ(p.counts()[delivery_counter::exhausted], 0U) << "expedited is not exhausted";
  EXPECT_EQ(kinds(p.on_retry_due(id, t0)), "") << "its timer finds it moving on";
  EXPECT_EQ(kinds(p.on_expedite({source, 0, 4}, t0)), "") << "once";
  EXPECT_EQ(kinds(p.on_retry_due(other, t0)), "permit");
}

TEST(AttemptPolicy, ExpediteDuringAnAttemptMovesItAtItsNextRetriableFailure) {
  auto p = make_policy();
  const auto id = start(p, make_record(4));
  EXPECT_EQ(kinds(p.on_expedite({source, 0, 4}, t0)), "");
  const auto failed = p.on_answer(answer(id, 503), t0);
  ASSERT_EQ(kinds(failed), "breaker log onward");
  EXPECT_EQ(p.counts()[delivery_counter::head_of_line_moves], 1U);
  EXPECT_EQ(p.counts()[delivery_counter::retries], 0U);
}

TEST(AttemptPolicy, ExpediteDuringAnAttemptThatIsDeliveredJustDelivers) {
  auto p = make_policy();
  const auto id = start(p, make_record(4));
  p.on_expedite({source, 0, 4}, t0);
  EXPECT_EQ(kinds(p.on_answer(answer(id, 200), t0)), "breaker report");
  EXPECT_EQ(p.counts()[delivery_counter::head_of_line_moves], 0U);
}

TEST(AttemptPolicy, ExpediteWhileTheBreakerIsOpenWaitsForTheNextRetriableFailure) {
  auto p = make_policy();
  const auto id = start(p, make_record(4));
  p.on_answer(answer(id, 503), t0);
  p.on_breaker_change(breaker_state::open, 14, t0);
  EXPECT_EQ(kinds(p.on_expedite({source, 0, 4}, t0)), "") << "nothing moves while Open";
  EXPECT_TRUE(p.find(id)->expedited);

  EXPECT_EQ(kinds(p.on_retry_due(id, t0)), "permit");
  EXPECT_EQ(kinds(p.on_permit(id, breaker_permit{false, false, 2}, t0)), "");
  EXPECT_EQ(kinds(p.on_breaker_change(breaker_state::half_open, 15, t0)), "permit");
  EXPECT_EQ(kinds(p.on_permit(id, breaker_permit{true, true, 3}, t0)), "post");
  const auto failed = p.on_answer(answer(id, 503), t0);
  ASSERT_EQ(kinds(failed), "breaker log onward") << "moves at its next retriable failure";
  EXPECT_TRUE(only<policy::breaker_outcome>(failed).probe);
}

TEST(AttemptPolicy, ExpediteLeavesHeldAndParkedRecordsAlone) {
  auto p = make_policy();
  const auto held = start(p, make_record(1));
  p.on_answer(answer(held, 401), t0);
  EXPECT_EQ(kinds(p.on_expedite({source, 0, 1}, t0)), "") << "held: waits for the endpoint";
  EXPECT_FALSE(p.find(held)->moving_on());

  auto parked = p.on_record(make_record(2), t0);
  p.on_permit(parked.id, breaker_permit{false, false, 1}, t0);
  EXPECT_EQ(kinds(p.on_expedite({source, 0, 2}, t0)), "") << "parked: waits for the breaker";
  EXPECT_EQ(kinds(p.on_breaker_change(breaker_state::closed, 16, t0)), "post")
      << "Closed: the parked record attempts at once";

  EXPECT_EQ(kinds(p.on_expedite({source, 0, 99}, t0)), "") << "no such record";
  EXPECT_EQ(kinds(p.on_expedite({"elsewhere", 0, 1}, t0)), "");
}

TEST(AttemptPolicy, ExpediteFindsNothingOnceTheRecordIsDone) {
  auto p = make_policy();
  const auto id = start(p, make_record(1));
  p.on_answer(answer(id, 200), t0);
  EXPECT_EQ(kinds(p.on_expedite({source, 0, 1}, t0)), "");
}

TEST(AttemptPolicy, ARecordHandedInTwiceIsExpeditedAsItsNewestDeliveryOnceTheOlderIsDone) {
  auto p = make_policy();
  const auto older = start(p, make_record(4));
  const auto newer = start(p, make_record(4));
  p.on_answer(answer(older, 200), t0);  // the older delivery is forgotten, its topic freed
  p.on_answer(answer(newer, 503), t0);
  const auto moved = p.on_expedite({source, 0, 4}, t0);
  ASSERT_EQ(kinds(moved), "log breaker log onward");
  EXPECT_EQ(only<policy::produce_onward>(moved).id, newer);
}

// -- the retry router
// ------------------------------------------------------------------------------

TEST(AttemptPolicy, AnOnwardRecordThatIsNeverAcknowledgedIsDroppedWithoutAnOutcome) {
  auto p = make_policy();
  const auto id = start(p, make_record(1));
  p.on_answer(answer(id, 422), t0);
  const auto failed = p.on_onward_failed(id, "the router is gone");
  ASSERT_EQ(kinds(failed), "log");
  EXPECT_EQ(only<policy::log_line>(failed).level, policy::log_level::error);
  EXPECT_EQ(p.in_flight(), 0U);
  EXPECT_EQ(kinds(p.on_onward_acked(id)), "") << "no outcome: its offset stays uncommitted";
  EXPECT_EQ(p.counts()[delivery_counter::dead_lettered], 0U);
  EXPECT_EQ(kinds(p.on_expedite({source, 0, 1}, t0)), "");
}

TEST(AttemptPolicy, ReportsEachRecordExactlyOnceWhateverArrivesLate) {
  auto p = make_policy();
  const auto id = start(p, make_record(1));
  EXPECT_EQ(all_of<policy::report_outcome>(p.on_answer(answer(id, 200), t0)).size(), 1U);
  EXPECT_EQ(kinds(p.on_answer(answer(id, 200), t0)), "");
  EXPECT_EQ(kinds(p.on_retry_due(id, t0)), "");
  EXPECT_EQ(kinds(p.on_permit(id, breaker_permit{true, false, 1}, t0)), "");
  EXPECT_EQ(kinds(p.on_onward_acked(id)), "");
  EXPECT_EQ(kinds(p.on_onward_failed(id, "late")), "");

  const auto moved = start(p, make_record(2));
  p.on_answer(answer(moved, 400), t0);
  EXPECT_EQ(all_of<policy::report_outcome>(p.on_onward_acked(moved)).size(), 1U);
  EXPECT_EQ(kinds(p.on_onward_acked(moved)), "");
  EXPECT_EQ(p.in_flight(), 0U);
}

TEST(AttemptPolicy, EachRecordGetsItsOwnIdAndCarriedIdempotencyKey) {
  auto p = make_policy();
  auto carried = make_record(1);
  carried.headers.emplace_back(std::string{idempotency_key_header}, "orders:3:14");
  const auto a = p.on_record(carried, t0);
  const auto b = p.on_record(make_record(2), t0);
  EXPECT_NE(a.id, b.id);
  EXPECT_EQ(p.find(a.id)->idempotency_key, "orders:3:14");
  EXPECT_EQ(p.find(b.id)->idempotency_key, source + ":0:2");
}

}  // namespace
}  // namespace courier

namespace courier {
namespace {

// An adaptive limit between 1 and 8 that starts at `initial`.
attempt_policy_settings with_an_adaptive_limit(int initial) {
  auto s = test_settings();
  adaptive_limit_settings a;
  a.min_limit = 1;
  a.max_limit = 8;
  a.initial_limit = initial;
  s.adaptive = a;
  return s;
}

// The adaptive limit in the policy: attempts over it wait, oldest first, and an answer frees
// a slot; overload answers cut the limit, so fewer attempts go out.
TEST(AttemptPolicy, AttemptsOverTheAdaptiveLimitWaitForAnAnswer) {
  auto p = make_policy(with_an_adaptive_limit(2));
  p.on_breaker_change(breaker_state::closed, 1, t0);
  EXPECT_EQ(p.concurrency_limit(), 2);
  std::vector<delivery_id> ids;
  std::size_t posted = 0;
  for (int i = 0; i < 4; ++i) {
    auto in = p.on_record(make_record(i), t0);
    ids.push_back(in.id);
    posted +=
        static_cast<std::size_t>(std::count_if(in.todo.begin(), in.todo.end(), [](const auto& x) {
          return std::holds_alternative<policy::post_attempt>(x);
        }));
  }
  EXPECT_EQ(posted, 2U) << "two in flight at a limit of two";
  EXPECT_EQ(p.attempts_out(), 2U);
  EXPECT_EQ(p.waiting_for_limit(), 2U);

  auto ok = answer(ids[0], 200);
  ok.duration = std::chrono::milliseconds{20};
  const auto freed = p.on_answer(ok, t0 + std::chrono::milliseconds{20});
  const auto next = std::find_if(freed.begin(), freed.end(), [](const auto& x) {
    return std::holds_alternative<policy::post_attempt>(x);
  });
  ASSERT_NE(next, freed.end()) << "the answer freed a slot for the oldest waiting attempt";
  EXPECT_EQ(std::get<policy::post_attempt>(*next).id, ids[2]);
  EXPECT_EQ(p.waiting_for_limit(), 1U);

  auto busy = answer(ids[1], 503);
  busy.duration = std::chrono::milliseconds{20};
  p.on_answer(busy, t0 + std::chrono::milliseconds{40});
  EXPECT_EQ(p.concurrency_limit(), 1) << "an overload answer cuts the limit";
  EXPECT_EQ(p.attempts_out(), 1U) << "the third is out; the fourth waits below the cut limit";
  EXPECT_EQ(p.waiting_for_limit(), 1U);
}

// A record waiting for a slot of the adaptive limit when the breaker opens spends nothing
// while it is Open: the freed slot makes it ask the breaker (and be parked) instead of posting
// past it.
TEST(AttemptPolicy, ARecordWaitingForASlotWhenTheBreakerOpensAsksItFirst) {
  auto p = make_policy(with_an_adaptive_limit(1));
  p.on_breaker_change(breaker_state::closed, 1, t0);
  const auto first = p.on_record(make_record(1), t0).id;
  const auto queued = p.on_record(make_record(2), t0).id;
  ASSERT_EQ(p.waiting_for_limit(), 1U);

  p.on_breaker_change(breaker_state::open, 2, t0);
  const auto freed = p.on_answer(answer(first, 503), t0);
  EXPECT_FALSE(has<policy::post_attempt>(freed)) << "posted while the breaker is Open";
  const auto asked = all_of<policy::request_permit>(freed);
  ASSERT_EQ(asked.size(), 1U) << kinds(freed);
  EXPECT_EQ(asked.front().id, queued);
  EXPECT_FALSE(has<policy::post_attempt>(p.on_permit(queued, breaker_permit{false, false, 2}, t0)));
  EXPECT_EQ(p.parked(), 1U);
  EXPECT_EQ(p.waiting_for_limit(), 0U);
}

// The Half-Open probe takes the next free slot ahead of records that waited longer: the breaker
// waits for its answer alone, and the others would go out on a permit of the Closed state.
TEST(AttemptPolicy, AHalfOpenProbeTakesTheNextFreeSlotFirst) {
  auto p = make_policy(with_an_adaptive_limit(1));
  p.on_breaker_change(breaker_state::closed, 1, t0);
  const auto first = p.on_record(make_record(1), t0).id;
  const auto queued = p.on_record(make_record(2), t0).id;
  p.on_breaker_change(breaker_state::open, 2, t0);
  p.on_breaker_change(breaker_state::half_open, 3, t0);
  const auto probe = p.on_record(make_record(3), t0).id;
  EXPECT_FALSE(has<policy::post_attempt>(p.on_permit(probe, breaker_permit{true, true, 3}, t0)))
      << "the slot is still taken";
  ASSERT_EQ(p.waiting_for_limit(), 2U);

  const auto next = all_of<policy::post_attempt>(p.on_answer(answer(first, 200), t0));
  ASSERT_EQ(next.size(), 1U);
  EXPECT_EQ(next.front().id, probe) << "record " << to_integer(queued) << " went out first";
}

// With two probes in Half-Open, one fails and the breaker reopens: the other, in backoff, must
// not keep its permit. Before, its next attempts went out while the breaker was Open (and their
// outcomes were dropped as stale), and it moved to a retry tier while Open.
TEST(AttemptPolicy, AProbeWhoseBreakerReopenedAsksForAPermitAgain) {
  auto p = make_policy();
  p.on_breaker_change(breaker_state::half_open, 2, t0);
  const auto a = p.on_record(make_record(1), t0).id;
  const auto b = p.on_record(make_record(2), t0).id;
  ASSERT_EQ(kinds(p.on_permit(a, breaker_permit{true, true, 2}, t0)), "post");
  ASSERT_EQ(kinds(p.on_permit(b, breaker_permit{true, true, 2}, t0)), "post");
  p.on_answer(answer(a, 503), t0);
  p.on_breaker_change(breaker_state::open, 3, t0);  // a's failure reopened it
  p.on_answer(answer(b, 503), t0);
  EXPECT_EQ(kinds(p.on_retry_due(b, t0)), "permit") << "not an attempt while Open";
  EXPECT_FALSE(p.find(b)->ticket.probe);
  EXPECT_TRUE(p.on_permit(b, breaker_permit{false, false, 3}, t0).empty());
  EXPECT_EQ(p.parked(), 1U) << "it waits, spending nothing, until the breaker changes";
}

// A success that the breaker drops as stale must not make the pool believe the breaker's failure
// count is back at zero: the next current success has to go to the breaker to reset it.
TEST(AttemptPolicy, AStaleSuccessDoesNotStandInForTheResetOfACurrentFailure) {
  auto p = make_policy();
  p.on_breaker_change(breaker_state::closed, 0, t0);
  const auto stale = p.on_record(make_record(1), t0).id;  // posted at generation 0
  p.on_breaker_change(breaker_state::open, 1, t0);
  p.on_breaker_change(breaker_state::half_open, 2, t0);
  p.on_breaker_change(breaker_state::closed, 3, t0);
  const auto refused = p.on_record(make_record(3), t0).id;
  const auto failure = p.on_answer(answer(refused, 401), t0);
  ASSERT_FALSE(only<policy::breaker_outcome>(failure).success);
  EXPECT_EQ(only<policy::breaker_outcome>(failure).generation, 3U);
  EXPECT_EQ(only<policy::breaker_outcome>(p.on_answer(answer(stale, 200), t0)).generation, 0U);
  const auto current = p.on_record(make_record(4), t0).id;
  const auto reset = all_of<policy::breaker_outcome>(p.on_answer(answer(current, 200), t0));
  ASSERT_EQ(reset.size(), 1U) << "the breaker still counts the 401";
  EXPECT_TRUE(reset.front().success);
  EXPECT_EQ(reset.front().generation, 3U);
}

TEST(AttemptPolicy, CountsAnswersByStatusClass) {
  auto p = make_policy();
  p.on_breaker_change(breaker_state::closed, 1, t0);
  const auto a = p.on_record(make_record(1), t0).id;
  p.on_answer(answer(a, 503), t0);
  p.on_retry_due(a, t0);
  p.on_answer(answer(a, 0, transport_error::timeout), t0);
  p.on_retry_due(a, t0);
  p.on_answer(answer(a, 204), t0);
  const auto& c = p.counts();
  EXPECT_EQ(c[delivery_counter::answered_5xx], 1U);
  EXPECT_EQ(c[delivery_counter::answered_none], 1U) << "no answer: a transport error";
  EXPECT_EQ(c[delivery_counter::answered_2xx], 1U);
  EXPECT_EQ(c[delivery_counter::answered_4xx], 0U);
}

TEST(AttemptPolicy, WithoutAnAdaptiveLimitEveryAttemptGoesOut) {
  auto p = make_policy();
  p.on_breaker_change(breaker_state::closed, 1, t0);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(kinds(p.on_record(make_record(i), t0).todo), "post");
  }
  EXPECT_EQ(p.concurrency_limit(), 0);
  EXPECT_EQ(p.waiting_for_limit(), 0U);
}

// -- the partner's contract: rate limit, retry budget, credentials, headers -------------------

// A policy whose breaker is known Closed: attempts go without a permit round trip.
policy closed_policy(attempt_policy_settings s) {
  auto p = make_policy(std::move(s));
  p.on_breaker_change(breaker_state::closed, 1, t0);
  return p;
}

attempt_policy_settings rate_limited(double rps, double burst) {
  auto s = test_settings();
  s.rate_limit = rate_limit_settings{rps, burst};
  return s;
}

TEST(AttemptPolicyRateLimit, AnAttemptWithoutATokenWaitsHoldingNoConnection) {
  auto p = closed_policy(rate_limited(10, 2));
  EXPECT_EQ(kinds(p.on_record(make_record(1), t0).todo), "post");
  EXPECT_EQ(kinds(p.on_record(make_record(2), t0).todo), "post");
  const auto third = p.on_record(make_record(3), t0);
  ASSERT_EQ(kinds(third.todo), "token");
  EXPECT_EQ(only<policy::schedule_token>(third.todo).delay, 100ms);
  EXPECT_EQ(p.waiting_for_rate(), 1U);
  EXPECT_EQ(p.attempts_out(), 2U);  // the waiting one holds no connection
  // A later record queues behind it, and no second timer is armed.
  EXPECT_EQ(kinds(p.on_record(make_record(4), t0).todo), "");
  EXPECT_EQ(p.waiting_for_rate(), 2U);

  // Too early: nothing goes, the timer is armed again for the rest.
  const auto early = p.on_token_due(t0 + 40ms);
  ASSERT_EQ(kinds(early), "token");
  EXPECT_EQ(only<policy::schedule_token>(early).delay, 60ms);

  const auto due = p.on_token_due(t0 + 100ms);
  ASSERT_EQ(kinds(due), "post token");
  EXPECT_EQ(only<policy::post_attempt>(due).id, third.id);
  EXPECT_EQ(p.waiting_for_rate(), 1U);
  EXPECT_EQ(kinds(p.on_token_due(t0 + 200ms)), "post");
  EXPECT_EQ(p.waiting_for_rate(), 0U);
  EXPECT_EQ(p.counts()[delivery_counter::rate_limited], 2U);
  EXPECT_EQ(p.counts()[delivery_counter::rate_limited_us], 100'000U + 200'000U);
}

TEST(AttemptPolicyRateLimit, RetriesTakeATokenToo) {
  auto p = closed_policy(rate_limited(1, 1));
  const auto id = p.on_record(make_record(1), t0).id;
  const auto failed = p.on_answer(answer(id, 503), t0);
  const auto retry = only<policy::schedule_retry>(failed);
  // Its backoff ran out before the next token: it waits for it.
  EXPECT_EQ(kinds(p.on_retry_due(id, t0 + retry.delay)), "token");
  EXPECT_EQ(kinds(p.on_token_due(t0 + 1s)), "post");
}

TEST(AttemptPolicyRateLimit, TheQuotaShareScalesRateAndBurst) {
  auto p = closed_policy(rate_limited(8, 8));
  EXPECT_EQ(p.rate_limit(), 8);
  p.on_quota_share(2, 8, t0);  // 2 of 8 partitions: a quarter
  EXPECT_EQ(p.rate_limit(), 2);
  EXPECT_EQ(kinds(p.on_record(make_record(1), t0).todo), "post");
  EXPECT_EQ(kinds(p.on_record(make_record(2), t0).todo), "post");
  const auto third = p.on_record(make_record(3), t0);
  ASSERT_EQ(kinds(third.todo), "token");
  EXPECT_EQ(only<policy::schedule_token>(third.todo).delay, 500ms);
  // No assignment (a revoke): the share stays, for the records still in flight.
  p.on_quota_share(0, 8, t0);
  EXPECT_EQ(p.rate_limit(), 2);
  // All 8 partitions again: the whole quota.
  p.on_quota_share(8, 8, t0);
  EXPECT_EQ(p.rate_limit(), 8);
}

TEST(AttemptPolicyRateLimit, AProbeGoesFirst) {
  auto p = make_policy(rate_limited(1, 1));
  const auto first = start(p, make_record(1));
  const auto waiting = p.on_record(make_record(2), t0).id;
  EXPECT_EQ(kinds(p.on_permit(waiting, breaker_permit{true, false, 1}, t0)), "token");
  const auto probe = p.on_record(make_record(3), t0).id;
  EXPECT_EQ(kinds(p.on_permit(probe, breaker_permit{true, true, 2}, t0)), "");
  p.on_breaker_change(breaker_state::half_open, 2, t0);
  const auto due = p.on_token_due(t0 + 1s);
  ASSERT_EQ(kinds(due), "post token");
  EXPECT_EQ(only<policy::post_attempt>(due).id, probe);
  EXPECT_NE(first, probe);
}

attempt_policy_settings budgeted(double ratio, double min_per_second) {
  auto s = test_settings();
  s.retry_budget = retry_budget_settings{ratio, 10s, min_per_second};
  return s;
}

TEST(AttemptPolicyRetryBudget, ARetryOverTheBudgetMovesToTheRetryTierNotTheDlq) {
  auto p = closed_policy(budgeted(0, 0));
  const auto id = p.on_record(make_record(1), t0).id;
  const auto failed = p.on_answer(answer(id, 503), t0);
  ASSERT_EQ(kinds(failed), "log log onward") << "a refusal of its own is no breaker failure";
  const auto onward = only<policy::produce_onward>(failed);
  EXPECT_EQ(onward.onward.produce.topic, source + ".retry-5s");
  EXPECT_EQ(p.counts()[delivery_counter::retry_budget_refused], 1U);
  EXPECT_EQ(p.counts()[delivery_counter::retries], 0U);
}

TEST(AttemptPolicyRetryBudget, FromTheLastTierARefusedRecordGoesIntoTheLastTierAgain) {
  auto p = closed_policy(budgeted(0, 0));
  // A record of the last tier (30s): its first attempt here is a retry of the record.
  const auto in = p.on_record(make_record(1, source + ".retry-30s"), t0);
  ASSERT_EQ(kinds(in.todo), "log log onward");
  const auto onward = only<policy::produce_onward>(in.todo);
  EXPECT_EQ(onward.to.what, destination::kind::tier);
  EXPECT_EQ(onward.onward.produce.topic, source + ".retry-30s");
  EXPECT_EQ(p.counts()[delivery_counter::attempts], 0U);
}

TEST(AttemptPolicyRetryBudget, RetriesWithinTheShareOfFirstAttemptsGo) {
  auto p = closed_policy(budgeted(0.5, 0));
  std::vector<delivery_id> ids;
  for (int i = 0; i < 4; ++i) {
    ids.push_back(p.on_record(make_record(i), t0).id);
  }
  // 4 first attempts: 2 retries fit.
  EXPECT_EQ(kinds(p.on_answer(answer(ids[0], 503), t0)), "log retry");
  EXPECT_EQ(kinds(p.on_retry_due(ids[0], t0)), "post");
  EXPECT_EQ(kinds(p.on_answer(answer(ids[1], 503), t0)), "log retry");
  EXPECT_EQ(kinds(p.on_retry_due(ids[1], t0)), "post");
  EXPECT_EQ(kinds(p.on_answer(answer(ids[2], 503), t0)), "log log onward");
  EXPECT_EQ(p.counts()[delivery_counter::retry_budget_refused], 1U);
  // The window moved past them all: the floor is 0 and no first attempt is in it.
  EXPECT_EQ(kinds(p.on_answer(answer(ids[3], 503), t0 + 11s)), "log log onward");
}

// Records failing within one backoff share one room: a granted retry counts when it is granted,
// not when its backoff ran out.
TEST(AttemptPolicyRetryBudget, RetriesGrantedBeforeAnyIsSentShareTheRoom) {
  auto p = closed_policy(budgeted(0.5, 0));
  std::vector<delivery_id> ids;
  for (int i = 0; i < 4; ++i) {
    ids.push_back(p.on_record(make_record(i), t0).id);
  }
  EXPECT_EQ(kinds(p.on_answer(answer(ids[0], 503), t0)), "log retry");
  EXPECT_EQ(kinds(p.on_answer(answer(ids[1], 503), t0)), "log retry");
  EXPECT_EQ(kinds(p.on_answer(answer(ids[2], 503), t0)), "log log onward")
      << "a third retry granted before the first two went out";
  EXPECT_EQ(kinds(p.on_retry_due(ids[0], t0)), "post");
  EXPECT_EQ(kinds(p.on_retry_due(ids[1], t0)), "post");
  EXPECT_EQ(p.counts()[delivery_counter::retry_budget_refused], 1U);
}

TEST(AttemptPolicyRetryBudget, TheFloorLetsAQuietRouteRetry) {
  auto p = closed_policy(budgeted(0.2, 1));  // 10 retries over the 10 s window
  const auto id = p.on_record(make_record(1), t0).id;
  EXPECT_EQ(kinds(p.on_answer(answer(id, 503), t0)), "log retry");
}

TEST(AttemptPolicyRetryBudget, WithoutTiersARefusedRetryWaitsAndAsksAgain) {
  auto s = budgeted(0, 0);
  s.topics = route_topics_named(source, {}, "");
  auto p = closed_policy(std::move(s));
  const auto id = p.on_record(make_record(1), t0).id;
  const auto failed = p.on_answer(answer(id, 503), t0);
  ASSERT_EQ(kinds(failed), "retry");
  const auto wait = only<policy::schedule_retry>(failed).delay;
  // Still over it: waits again, no attempt.
  EXPECT_EQ(kinds(p.on_retry_due(id, t0 + wait)), "retry");
  EXPECT_EQ(p.counts()[delivery_counter::attempts], 1U);
}

attempt_policy_settings authenticated() {
  auto s = test_settings();
  s.authenticated = true;
  return s;
}

TEST(AttemptPolicyCredentials, NothingIsSentBeforeTheFirstCredentials) {
  auto p = closed_policy(authenticated());
  const auto id = p.on_record(make_record(1), t0).id;
  EXPECT_EQ(p.waiting_for_credentials(), 1U);
  EXPECT_EQ(p.attempts_out(), 0U);
  const auto sent = p.on_credentials("Bearer one", t0);
  const auto post = only<policy::post_attempt>(sent);
  EXPECT_EQ(post.id, id);
  EXPECT_EQ(header_in(post.request, "Authorization"), "Bearer one");
  EXPECT_EQ(p.waiting_for_credentials(), 0U);
}

TEST(AttemptPolicyCredentials, A401AsksForFreshCredentialsOnceThenCountsAsAnEndpointFailure) {
  auto p = closed_policy(authenticated());
  p.on_credentials("Bearer one", t0);
  const auto id = p.on_record(make_record(1), t0).id;
  const auto refused = p.on_answer(answer(id, 401), t0);
  ASSERT_EQ(kinds(refused), "log refresh");
  EXPECT_EQ(only<policy::refresh_credentials>(refused).stale, "Bearer one");
  EXPECT_EQ(p.counts()[delivery_counter::credential_refreshes], 1U);

  const auto again = p.on_credentials_refreshed(id, std::string{"Bearer two"}, t0);
  const auto post = only<policy::post_attempt>(again);
  EXPECT_EQ(header_in(post.request, "Authorization"), "Bearer two");
  EXPECT_EQ(p.find(id)->attempts, 1);  // the 401 before the refresh did not count

  // A second 401 with the fresh credentials: an endpoint failure (held, the breaker told).
  const auto held = p.on_answer(answer(id, 401), t0);
  EXPECT_EQ(kinds(held), "breaker log retry");
  EXPECT_EQ(p.counts()[delivery_counter::endpoint_failures], 1U);
  EXPECT_EQ(p.counts()[delivery_counter::credential_refreshes], 1U);
}

TEST(AttemptPolicyCredentials, A401ToStaleCredentialsTriesAgainWithTheNewOnes) {
  auto p = closed_policy(authenticated());
  p.on_credentials("Bearer one", t0);
  const auto id = p.on_record(make_record(1), t0).id;
  p.on_credentials("Bearer two", t0);  // rotated while the attempt was out
  const auto again = p.on_answer(answer(id, 401), t0);
  const auto post = only<policy::post_attempt>(again);
  EXPECT_EQ(header_in(post.request, "Authorization"), "Bearer two");
  EXPECT_EQ(p.counts()[delivery_counter::credential_refreshes], 0U);
}

TEST(AttemptPolicyCredentials, NoFreshCredentialsHoldsTheRecord) {
  auto p = closed_policy(authenticated());
  p.on_credentials("Bearer one", t0);
  const auto id = p.on_record(make_record(1), t0).id;
  p.on_answer(answer(id, 401), t0);
  EXPECT_EQ(kinds(p.on_credentials_refreshed(id, std::nullopt, t0)), "breaker log retry");
  EXPECT_EQ(p.counts()[delivery_counter::endpoint_failures], 1U);
  EXPECT_EQ(p.counts()[delivery_counter::dead_lettered], 0U);
}

TEST(AttemptPolicyHeaders, StaticAndForwardedHeadersGoOnEveryAttempt) {
  auto s = test_settings();
  s.headers.fixed = {{"X-Api-Key", "k-123"}};
  s.headers.forwarded = {"traceparent", "tracestate"};
  auto p = closed_policy(std::move(s));
  auto r = make_record(1);
  const std::string trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  r.headers = {{"traceparent", trace}, {"other", "x"}};
  const auto in = p.on_record(std::move(r), t0);
  const auto first = only<policy::post_attempt>(in.todo);
  EXPECT_EQ(header_in(first.request, "X-Api-Key"), "k-123");
  EXPECT_EQ(header_in(first.request, "traceparent"), trace);
  EXPECT_EQ(header_in(first.request, "tracestate"), "<absent>");  // the record has none
  EXPECT_EQ(header_in(first.request, "other"), "<absent>");
  EXPECT_EQ(header_in(first.request, "Authorization"), "<absent>");
  p.on_answer(answer(in.id, 503), t0);
  const auto retry = only<policy::post_attempt>(p.on_retry_due(in.id, t0));
  EXPECT_EQ(header_in(retry.request, "traceparent"), trace);
  EXPECT_EQ(header_in(retry.request, "X-Api-Key"), "k-123");
}

// -- redaction: partner text kept without the route's secrets --------------------------------

TEST(AttemptPolicyRedaction, AnEchoedCredentialNeverReachesTheDlqRecord) {
  auto s = authenticated();
  s.signing.hmac_secret = "hmac-secret-1";
  s.headers.fixed = {{"X-Api-Key", "k-123456"}};
  s.secrets = {"/services/T0/B0/SECRET"};
  auto p = closed_policy(std::move(s));
  p.on_credentials("Bearer one.token", t0);
  const auto id = p.on_record(make_record(1), t0).id;
  p.on_credentials("Bearer two.token", t0);  // rotated while the attempt was out
  auto a = answer(id, 400);
  a.body =
      "POST /services/T0/B0/SECRET\nAuthorization: Bearer one.token\nX-Api-Key: k-123456\n"
      "(hmac-secret-1)";
  a.response_headers = {{"X-Echo", "one.token"}};
  const auto out = p.on_answer(a, t0);
  const auto onward = only<policy::produce_onward>(out);
  const auto& headers = onward.onward.produce.headers;
  const auto excerpt = find_header(headers, error_response_header);
  ASSERT_TRUE(excerpt);
  EXPECT_EQ(*excerpt,
            "POST [redacted]\nAuthorization: [redacted]\nX-Api-Key: [redacted]\n([redacted])");
  for (const auto& h : headers) {
    for (const std::string secret : {"one.token", "k-123456", "SECRET", "hmac-secret-1"}) {
      EXPECT_EQ(h.second.find(secret), std::string::npos) << h.first << ": " << h.second;
    }
  }
}

TEST(AttemptPolicyRedaction, ATransportErrorMessageIsRedactedInTheTrace) {
  auto s = test_settings();
  s.secrets = {"/services/T0/B0/SECRET"};
  auto p = closed_policy(std::move(s));
  const auto id = p.on_record(make_record(1), t0).id;
  auto a = answer(id, 0, transport_error::protocol);
  a.body.clear();
  a.error_message = "malformed response to /services/T0/B0/SECRET";
  p.on_answer(a, t0);
  ASSERT_EQ(p.find(id)->trace.size(), 1U);
  EXPECT_EQ(p.find(id)->trace.at(0).find("SECRET"), std::string::npos) << p.find(id)->trace.at(0);
}

TEST(AttemptPolicyRedaction, AnAnswerWithoutSecretsIsKeptAsItIs) {
  auto s = test_settings();
  s.headers.fixed = {{"X-Api-Key", "k-123456"}};
  auto p = closed_policy(std::move(s));
  const auto id = p.on_record(make_record(1), t0).id;
  const auto out = p.on_answer(answer(id, 400), t0);
  const auto onward = only<policy::produce_onward>(out);
  const auto excerpt = find_header(onward.onward.produce.headers, error_response_header);
  ASSERT_TRUE(excerpt);
  EXPECT_EQ(*excerpt, "the receiver's body");
}

}  // namespace
}  // namespace courier
