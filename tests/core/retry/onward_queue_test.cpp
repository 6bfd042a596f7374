#include "core/retry/onward_queue.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/actions.hpp"

namespace courier {
namespace {

using namespace std::chrono_literals;
using testing::all_of;
using testing::has;
using testing::only;
using queue = onward_queue;

queue::onward_request dlq_record(std::int32_t partition = 3) {
  return {"brew.shipments.dlq", partition, {"brew.shipments.v1", partition}};
}

produce_error acked() { return {}; }

produce_error failure(bool producer_fatal = false) {
  return {produce_failure::failed, "MSG_SIZE_TOO_LARGE",
          "MSG_SIZE_TOO_LARGE: Broker: Message size too large", producer_fatal};
}

produce_error unknown_partition() {
  return {produce_failure::unknown_partition, "_UNKNOWN_PARTITION",
          "_UNKNOWN_PARTITION: Local: Unknown partition", false};
}

produce_error refused_by_fatal_producer() {
  return {produce_failure::producer_fatal, "_FATAL",
          "the producer hit a fatal error and must be rebuilt", false};
}

// Everything but log lines: what the shell does besides logging.
std::size_t deeds(const queue::actions& todo) {
  return todo.size() - all_of<queue::log_line>(todo).size();
}

// The ids of the records that `todo` produces, in order.
std::vector<std::uint64_t> produced_ids(const queue::actions& todo) {
  std::vector<std::uint64_t> ids;
  for (const auto& p : all_of<queue::produce_record>(todo)) {
    ids.push_back(p.id);
  }
  return ids;
}

// A record on its way: accepted and handed to the producer.
std::uint64_t take(queue& q, queue::onward_request r = dlq_record()) {
  auto a = q.on_request(std::move(r));
  EXPECT_NE(a.id, 0U);
  EXPECT_EQ(produced_ids(a.todo), std::vector<std::uint64_t>{a.id});
  return a.id;
}

TEST(OnwardQueue, ARecordIsProducedToItsSourcePartitionWithTheCurrentProducer) {
  queue q;
  auto a = q.on_request(dlq_record(3));
  const auto p = only<queue::produce_record>(a.todo);
  EXPECT_EQ(p.id, a.id);
  EXPECT_EQ(p.partition, std::optional<std::int32_t>{3});
  EXPECT_EQ(p.generation, 1U);
  EXPECT_EQ(q.outstanding(), 1U);
  EXPECT_EQ(q.in_flight(), 1U);
}

TEST(OnwardQueue, AnAcknowledgedRecordIsAnsweredOnceAndForgotten) {
  queue q;
  const auto id = take(q);
  const auto todo = q.on_report(id, 1, acked());
  EXPECT_EQ(only<queue::answer_requester>(todo).id, id);
  EXPECT_EQ(deeds(todo), 1U) << "nothing else: it never failed";
  EXPECT_EQ(q.outstanding(), 0U);
  EXPECT_EQ(q.find(id), nullptr);
  EXPECT_EQ(q.counts().produced, 1U);

  EXPECT_TRUE(q.on_report(id, 1, acked()).empty()) << "a second report answers nothing";
  EXPECT_EQ(q.counts().produced, 1U);
  EXPECT_EQ(q.counts().stale_reports, 1U);
}

TEST(OnwardQueue, AFailedRecordIsProducedAgainAfterABackoffThatGrowsAndIsCapped) {
  queue q;
  const auto id = take(q);
  std::vector<std::chrono::milliseconds> delays;
  for (int i = 0; i < 8; ++i) {
    const auto failed = q.on_report(id, 1, failure());
    EXPECT_FALSE(has<queue::produce_record>(failed)) << "not at once: after the backoff";
    const auto s = only<queue::schedule_reproduce>(failed);
    EXPECT_EQ(s.id, id);
    delays.push_back(s.delay);
    EXPECT_EQ(q.in_flight(), 0U);
    EXPECT_EQ(produced_ids(q.on_reproduce_due(id)), std::vector<std::uint64_t>{id});
  }
  EXPECT_EQ(delays, (std::vector<std::chrono::milliseconds>{200ms, 400ms, 800ms, 1600ms, 3200ms,
                                                            5000ms, 5000ms, 5000ms}));
  EXPECT_EQ(q.find(id)->failures, 8);
  EXPECT_EQ(q.counts().produce_failures, 8U);
  EXPECT_EQ(only<queue::answer_requester>(q.on_report(id, 1, acked())).id, id)
      << "never dropped: acknowledged at last";
}

TEST(OnwardQueue, TheBackoffDoublesFrom200MillisecondsUpTo5Seconds) {
  EXPECT_EQ(onward_backoff(1), 200ms);
  EXPECT_EQ(onward_backoff(2), 400ms);
  EXPECT_EQ(onward_backoff(5), 3200ms);
  EXPECT_EQ(onward_backoff(6), 5000ms);
  EXPECT_EQ(onward_backoff(1000), 5000ms);
}

TEST(OnwardQueue, ATimerForARecordAlreadyWithTheProducerProducesNothing) {
  queue q;
  const auto id = take(q);
  EXPECT_TRUE(q.on_reproduce_due(id).empty());
  q.on_report(id, 1, acked());
  EXPECT_TRUE(q.on_reproduce_due(id).empty()) << "nor one for a record acknowledged";
}

TEST(OnwardQueue, AFailingRecordTellsItsRequesterOnceAndAgainOnceItIsThrough) {
  queue q;
  const auto id = take(q);
  const auto first = q.on_report(id, 1, failure());
  const auto told = only<queue::tell_requester>(first);
  EXPECT_EQ(told.id, id);
  EXPECT_TRUE(told.blocked);
  EXPECT_EQ(told.reason, "MSG_SIZE_TOO_LARGE: Broker: Message size too large");
  EXPECT_EQ(q.counts().failing, 1);
  for (int i = 0; i < 3; ++i) {
    q.on_reproduce_due(id);
    EXPECT_FALSE(has<queue::tell_requester>(q.on_report(id, 1, failure())))
        << "told once while it fails";
  }
  EXPECT_EQ(q.counts().failing, 1) << "one record failing, however often";

  q.on_reproduce_due(id);
  const auto through = q.on_report(id, 1, acked());
  ASSERT_EQ(deeds(through), 2U);
  const auto resumed = only<queue::tell_requester>(through);
  EXPECT_EQ(resumed.id, id);
  EXPECT_FALSE(resumed.blocked);
  EXPECT_TRUE(std::holds_alternative<queue::answer_requester>(through.back()))
      << "told before it is answered and forgotten";
  EXPECT_EQ(q.counts().failing, 0);
}

TEST(OnwardQueue, ARecordForAPartitionTheDestinationLacksGoesToThePartitionersChoice) {
  queue q;
  const auto id = take(q, dlq_record(7));
  const auto fallback = q.on_report(id, 1, unknown_partition());
  const auto p = only<queue::produce_record>(fallback);
  EXPECT_EQ(p.id, id);
  EXPECT_EQ(p.partition, std::nullopt) << "the partitioner picks one by key";
  EXPECT_EQ(deeds(fallback), 1U) << "at once: no failure, no backoff, no notice";
  EXPECT_EQ(q.counts().produce_failures, 0U);
  EXPECT_EQ(q.counts().partition_fallbacks, 1U);

  // A later failure keeps the partitioner's choice.
  q.on_report(id, 1, failure());
  EXPECT_EQ(only<queue::produce_record>(q.on_reproduce_due(id)).partition, std::nullopt);
  EXPECT_EQ(only<queue::answer_requester>(q.on_report(id, 1, acked())).id, id);
}

TEST(OnwardQueue, AnUnknownPartitionOfThePartitionersChoiceIsAFailureLikeAnyOther) {
  queue q;
  const auto id = take(q);
  q.on_report(id, 1, unknown_partition());
  const auto again = q.on_report(id, 1, unknown_partition());
  EXPECT_FALSE(has<queue::produce_record>(again));
  EXPECT_TRUE(has<queue::schedule_reproduce>(again));
  EXPECT_TRUE(only<queue::tell_requester>(again).blocked);
}

TEST(OnwardQueue, AReportAboutARecordWaitingOutItsBackoffIsStale) {
  queue q;
  const auto id = take(q);
  q.on_report(id, 1, failure());
  EXPECT_TRUE(q.on_report(id, 1, acked()).empty()) << "its timer produces it again, not this";
  EXPECT_EQ(q.counts().stale_reports, 1U);
  EXPECT_EQ(q.counts().produced, 0U);
  ASSERT_NE(q.find(id), nullptr);
  EXPECT_FALSE(q.find(id)->in_flight);
  EXPECT_EQ(produced_ids(q.on_reproduce_due(id)), std::vector<std::uint64_t>{id});
}

TEST(OnwardQueue, AFailureIsLoggedWithItsDestinationItsErrorAndItsWait) {
  queue q;
  const auto id = take(q, dlq_record(7));
  q.on_report(id, 1, unknown_partition());
  const auto failed = q.on_report(id, 1, failure());
  const auto line = only<queue::log_line>(failed);
  EXPECT_EQ(line.level, queue::log_level::error);
  EXPECT_EQ(line.fields, (log_fields{{"topic", std::string{"brew.shipments.dlq"}},
                                     {"partition", std::int64_t{-1}},
                                     {"error", std::string{"MSG_SIZE_TOO_LARGE"}},
                                     {"failures", std::int64_t{1}},
                                     {"retry_in_ms", std::int64_t{200}}}))
      << "-1: the partitioner's choice, once the destination lacked the source's partition";
}

TEST(OnwardQueue, ARebuildKeepsTheRecordsThatWentToThePartitionersChoiceThere) {
  queue q;
  const auto a = take(q, dlq_record(7));
  const auto b = take(q, dlq_record(2));
  q.on_report(a, 1, unknown_partition());
  const auto todo = q.on_report(b, 1, refused_by_fatal_producer());
  const auto produced = all_of<queue::produce_record>(todo);
  ASSERT_EQ(produced.size(), 2U);
  EXPECT_EQ(produced[0].id, a);
  EXPECT_EQ(produced[0].partition, std::nullopt) << "not its source partition again";
  EXPECT_EQ(produced[1].id, b);
  EXPECT_EQ(produced[1].partition, std::optional<std::int32_t>{2});
}

// Records 1..3 in flight, 4 waiting for its backoff; then record 1 fails and the producer is
// left with a fatal error.
TEST(OnwardQueue, AFatalProducerErrorRebuildsItAndProducesEveryRecordInFlightAgainOnce) {
  queue q;
  const auto a = take(q);
  const auto b = take(q);
  const auto c = take(q);
  const auto d = take(q);
  q.on_report(d, 1, failure());

  const auto todo = q.on_report(a, 1, failure(/*producer_fatal=*/true));
  EXPECT_EQ(only<queue::rebuild_producer>(todo).generation, 2U);
  EXPECT_EQ(produced_ids(todo), (std::vector<std::uint64_t>{b, c}))
      << "each record in flight once; not the failed one, nor the one in its backoff";
  for (const auto& p : all_of<queue::produce_record>(todo)) {
    EXPECT_EQ(p.generation, 2U) << "with the new producer";
  }
  const auto rebuilt = std::find_if(todo.begin(), todo.end(), [](const auto& x) {
    return std::holds_alternative<queue::rebuild_producer>(x);
  });
  const auto first_produce = std::find_if(todo.begin(), todo.end(), [](const auto& x) {
    return std::holds_alternative<queue::produce_record>(x);
  });
  EXPECT_LT(rebuilt, first_produce) << "the new producer first";
  EXPECT_EQ(only<queue::schedule_reproduce>(todo).id, a) << "the failed one after its backoff";
  EXPECT_TRUE(only<queue::tell_requester>(todo).blocked);
  EXPECT_EQ(q.generation(), 2U);
  EXPECT_EQ(q.counts().producer_rebuilds, 1U);

  // Its backoff over, each waiting record goes to the new producer.
  EXPECT_EQ(only<queue::produce_record>(q.on_reproduce_due(a)).generation, 2U);
  EXPECT_EQ(only<queue::produce_record>(q.on_reproduce_due(d)).generation, 2U);
  EXPECT_EQ(q.in_flight(), 4U);
}

TEST(OnwardQueue, AReportFromAnOlderProducerIsIgnored) {
  queue q;
  const auto a = take(q);
  const auto b = take(q);
  q.on_report(a, 1, failure(/*producer_fatal=*/true));

  // The old producer's report of b, as it goes: whatever it says, the new one has b now.
  EXPECT_TRUE(q.on_report(b, 1, acked()).empty());
  EXPECT_TRUE(q.on_report(b, 1, failure(/*producer_fatal=*/true)).empty()) << "no second rebuild";
  EXPECT_EQ(q.counts().stale_reports, 2U);
  EXPECT_EQ(q.counts().producer_rebuilds, 1U);
  ASSERT_NE(q.find(b), nullptr);
  EXPECT_TRUE(q.find(b)->in_flight);

  EXPECT_EQ(only<queue::answer_requester>(q.on_report(b, 2, acked())).id, b)
      << "the new producer's report counts";
}

TEST(OnwardQueue, ARecordAFatallyFailedProducerRefusedIsProducedAgainByTheRebuild) {
  queue q;
  const auto a = take(q);
  const auto b = take(q);
  const auto todo = q.on_report(b, 1, refused_by_fatal_producer());
  EXPECT_EQ(only<queue::rebuild_producer>(todo).generation, 2U);
  EXPECT_EQ(produced_ids(todo), (std::vector<std::uint64_t>{a, b}))
      << "the refused one with every other one in flight, in the order they came";
  EXPECT_FALSE(has<queue::tell_requester>(todo)) << "the record did not fail: its producer did";
  EXPECT_FALSE(has<queue::schedule_reproduce>(todo));
  EXPECT_EQ(q.counts().produce_failures, 0U);

  // The other records produced with the failed producer before the rebuild was carried out
  // were refused too: stale, the rebuild produces them.
  EXPECT_TRUE(q.on_report(a, 1, refused_by_fatal_producer()).empty());
  EXPECT_EQ(q.counts().producer_rebuilds, 1U);
}

TEST(OnwardQueue, AStoppedQueueDecidesNothingMore) {
  queue q;
  const auto a = take(q);
  const auto b = take(q);
  q.on_report(b, 1, failure());

  const auto stop = q.on_stop();
  EXPECT_EQ(deeds(stop), 0U);
  ASSERT_EQ(all_of<queue::log_line>(stop).size(), 1U) << "it says what stays unacknowledged";
  EXPECT_TRUE(q.stopping());

  EXPECT_TRUE(q.on_reproduce_due(b).empty()) << "not produced again";
  EXPECT_TRUE(q.on_report(a, 1, failure(/*producer_fatal=*/true)).empty()) << "nor rebuilt";
  EXPECT_TRUE(q.on_report(a, 1, acked()).empty()) << "nor answered";
  const auto late = q.on_request(dlq_record());
  EXPECT_EQ(late.id, 0U) << "nor taken";
  EXPECT_TRUE(late.todo.empty());
  EXPECT_TRUE(q.on_stop().empty());
  EXPECT_EQ(q.outstanding(), 2U);
  EXPECT_EQ(q.counts().producer_rebuilds, 0U);
}

TEST(OnwardQueue, AQueueStoppedWithNothingOutstandingSaysNothing) {
  queue q;
  const auto a = take(q);
  q.on_report(a, 1, acked());
  EXPECT_TRUE(q.on_stop().empty());
}

}  // namespace
}  // namespace courier
