#include "actors/answer_inbox.hpp"

#include <chrono>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "tests/actors/deterministic.hpp"

namespace courier::testing {
namespace {

using actors::answer_inbox;
using then = answer_inbox::then;

attempt_answer answer(std::uint64_t id) {
  attempt_answer r;
  r.id = delivery_id{id};
  r.status = 200;
  return r;
}

// `n` attempts posted: their answers are expected.
void expect(answer_inbox& inbox, int n) {
  for (int i = 0; i < n; ++i) {
    inbox.expect();
  }
}

std::vector<std::uint64_t> ids(const std::vector<attempt_answer>& rs) {
  std::vector<std::uint64_t> out;
  out.reserve(rs.size());
  for (const auto& r : rs) {
    out.push_back(to_integer(r.id));
  }
  return out;
}

TEST(AnswerInbox, WakeAtOneWakesThePoolForTheFirstAnswerOfEachBatchOnly) {
  answer_inbox inbox;
  expect(inbox, 5);
  EXPECT_EQ(inbox.push(answer(1), 1).next, then::wake_now);
  EXPECT_EQ(inbox.push(answer(2), 1).next, then::nothing);
  std::vector<attempt_answer> taken;
  inbox.take(taken);
  EXPECT_EQ(ids(taken), (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(inbox.push(answer(3), 1).next, then::wake_now);
}

TEST(AnswerInbox, TheFirstAnswerWaitsForMoreAndTheOneThatReachesWakeAtWakesThePool) {
  answer_inbox inbox;
  expect(inbox, 10);
  const auto first = inbox.push(answer(1), 3);
  EXPECT_EQ(first.next, then::wake_later);
  EXPECT_EQ(inbox.push(answer(2), 3).next, then::nothing);
  EXPECT_EQ(inbox.push(answer(3), 3).next, then::wake_now);
  // The moment passes after the pool was woken: nobody wakes it twice.
  EXPECT_FALSE(inbox.due(first.batch));
  EXPECT_EQ(inbox.push(answer(4), 3).next, then::nothing);
  std::vector<attempt_answer> taken;
  inbox.take(taken);
  EXPECT_EQ(ids(taken), (std::vector<std::uint64_t>{1, 2, 3, 4}));
}

TEST(AnswerInbox, AFewAnswersWakeThePoolWhenTheirMomentIsDueOnce) {
  answer_inbox inbox;
  expect(inbox, 10);
  const auto first = inbox.push(answer(1), 16);
  EXPECT_EQ(first.next, then::wake_later);
  EXPECT_EQ(inbox.push(answer(2), 16).next, then::nothing);
  EXPECT_TRUE(inbox.due(first.batch));
  EXPECT_FALSE(inbox.due(first.batch));
  // Woken, not yet taken: more answers join the batch without another wake-up.
  EXPECT_EQ(inbox.push(answer(3), 16).next, then::nothing);
  std::vector<attempt_answer> taken;
  inbox.take(taken);
  EXPECT_EQ(ids(taken), (std::vector<std::uint64_t>{1, 2, 3}));
}

TEST(AnswerInbox, AnOldBatchsMomentDoesNotWakeThePoolForTheNextBatch) {
  answer_inbox inbox;
  expect(inbox, 10);
  const auto first = inbox.push(answer(1), 2);
  EXPECT_EQ(inbox.push(answer(2), 2).next, then::wake_now);
  std::vector<attempt_answer> taken;
  inbox.take(taken);
  const auto second = inbox.push(answer(3), 2);
  EXPECT_EQ(second.next, then::wake_later);
  EXPECT_NE(second.batch, first.batch);
  EXPECT_FALSE(inbox.due(first.batch));
  EXPECT_TRUE(inbox.due(second.batch));
}

TEST(AnswerInbox, TheLastUnansweredAttemptsAnswerWakesThePoolAtOnce) {
  answer_inbox inbox;
  expect(inbox, 3);
  const auto first = inbox.push(answer(1), 16);
  EXPECT_EQ(first.next, then::wake_later);
  EXPECT_EQ(inbox.push(answer(2), 16).next, then::nothing);
  EXPECT_EQ(inbox.push(answer(3), 16).next, then::wake_now) << "no more answers are coming";
  EXPECT_FALSE(inbox.due(first.batch));
  std::vector<attempt_answer> taken;
  inbox.take(taken);
  EXPECT_EQ(ids(taken), (std::vector<std::uint64_t>{1, 2, 3}));
  // A single attempt in flight: its answer waits for nothing.
  expect(inbox, 1);
  EXPECT_EQ(inbox.push(answer(4), 16).next, then::wake_now);
}

// An actor standing in for the delivery pool: counts its wake-ups.
caf::behavior counting_pool(caf::event_based_actor*, const std::shared_ptr<int>& wakes) {
  return {[wakes](actors::answers_atom) { ++*wakes; }};
}

TEST(PushAnswer, OffTheIoThreadsAnAnswerThatWouldWaitWakesThePoolAtOnce) {
  deterministic_system d;
  auto wakes = std::make_shared<int>(0);
  auto pool = d.sys->spawn(counting_pool, wakes);
  auto sink = std::make_shared<actors::answer_sink>();
  sink->pool = caf::actor_cast<caf::weak_actor_ptr>(pool);
  sink->gather = std::chrono::milliseconds{1};
  expect(sink->inbox, 3);
  actors::push_answer(sink, answer(1));
  actors::push_answer(sink, answer(2));
  d.run();
  EXPECT_EQ(*wakes, 1);
  std::vector<attempt_answer> taken;
  sink->inbox.take(taken);
  EXPECT_EQ(ids(taken), (std::vector<std::uint64_t>{1, 2}));
  actors::push_answer(sink, answer(3));
  d.run();
  EXPECT_EQ(*wakes, 2);
}

}  // namespace
}  // namespace courier::testing
