#include "core/delivery/answer_judge.hpp"

#include <gtest/gtest.h>

namespace courier {
namespace {

constexpr auto none = transport_error::none;

answer_verdict judge_once(int status, transport_error error = none) {
  answer_judge j{answer_judge_settings{}};
  return j.judge(status, error, /*probe=*/false);
}

TEST(AnswerJudge, ClassifiesSingleAnswersLikeTheStatusTable) {
  EXPECT_EQ(judge_once(200), answer_verdict::delivered);
  EXPECT_EQ(judge_once(204), answer_verdict::delivered);
  EXPECT_EQ(judge_once(503), answer_verdict::retry);
  EXPECT_EQ(judge_once(429), answer_verdict::retry);
  EXPECT_EQ(judge_once(0, transport_error::timeout), answer_verdict::retry);
  EXPECT_EQ(judge_once(0, transport_error::connect), answer_verdict::retry);
  EXPECT_EQ(judge_once(400), answer_verdict::dead_letter);
  EXPECT_EQ(judge_once(422), answer_verdict::dead_letter);
  EXPECT_EQ(judge_once(301), answer_verdict::dead_letter);
}

// The client reports a status beside an error only when the answer's headers were read whole and
// its body then failed: the receiver decided. A 2xx with a body over max_response_bytes was
// retried, moved through the tiers and dead-lettered although the partner took it every time.
TEST(AnswerJudge, AStatusReadWholeDecidesWhateverHappenedToItsBody) {
  for (const auto error :
       {transport_error::response_too_large, transport_error::timeout, transport_error::reset,
        transport_error::protocol, transport_error::tls}) {
    EXPECT_EQ(judge_once(200, error), answer_verdict::delivered) << to_string(error);
    EXPECT_EQ(judge_once(400, error), answer_verdict::dead_letter) << to_string(error);
    EXPECT_EQ(judge_once(503, error), answer_verdict::retry) << to_string(error);
    EXPECT_EQ(judge_once(401, error), answer_verdict::endpoint_failure) << to_string(error);
    EXPECT_EQ(judge_once(0, error), answer_verdict::retry) << "no status: " << to_string(error);
  }
}

TEST(AnswerJudge, GoneIsAboutTheEndpointEvenAsTheProbeAndInARun) {
  EXPECT_EQ(judge_once(410), answer_verdict::endpoint_gone);
  answer_judge j{answer_judge_settings{{401, 403}, 2}};
  EXPECT_EQ(j.judge(400, none, false), answer_verdict::dead_letter);
  EXPECT_EQ(j.judge(410, none, true), answer_verdict::endpoint_gone);
  EXPECT_EQ(j.judge(410, none, false), answer_verdict::endpoint_gone);
  EXPECT_EQ(j.permanent_run(), 1) << "a 410 neither extends nor ends the run";
}

TEST(AnswerJudge, UnauthorizedAndForbiddenAreTheEndpointsFailureNotTheRecords) {
  EXPECT_EQ(judge_once(401), answer_verdict::endpoint_failure);
  EXPECT_EQ(judge_once(403), answer_verdict::endpoint_failure);
}

TEST(AnswerJudge, AnAuthFailureIsNeverDeadLetteredEvenAsTheProbe) {
  answer_judge j{answer_judge_settings{}};
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(j.judge(401, none, /*probe=*/i % 7 == 0), answer_verdict::endpoint_failure);
  }
}

TEST(AnswerJudge, TheEndpointFailureStatusesAreConfigurable) {
  answer_judge j{answer_judge_settings{{401, 403, 404}, 20}};
  EXPECT_EQ(j.judge(404, none, false), answer_verdict::endpoint_failure);
  answer_judge none_listed{answer_judge_settings{{}, 20}};
  EXPECT_EQ(none_listed.judge(401, none, false), answer_verdict::dead_letter);
}

TEST(AnswerJudge, ARunOfPermanentAnswersBecomesAnEndpointFailureAtTheThreshold) {
  answer_judge j{answer_judge_settings{{401, 403}, 5}};
  for (int i = 1; i < 5; ++i) {
    ASSERT_EQ(j.judge(400, none, false), answer_verdict::dead_letter) << i;
  }
  EXPECT_EQ(j.judge(400, none, false), answer_verdict::endpoint_failure);
  EXPECT_EQ(j.judge(422, none, false), answer_verdict::endpoint_failure);
  EXPECT_EQ(j.permanent_run(), 6);
}

TEST(AnswerJudge, ADeliveryEndsTheRun) {
  answer_judge j{answer_judge_settings{{401, 403}, 3}};
  EXPECT_EQ(j.judge(400, none, false), answer_verdict::dead_letter);
  EXPECT_EQ(j.judge(400, none, false), answer_verdict::dead_letter);
  EXPECT_EQ(j.judge(200, none, false), answer_verdict::delivered);
  EXPECT_EQ(j.permanent_run(), 0);
  EXPECT_EQ(j.judge(400, none, false), answer_verdict::dead_letter);
  EXPECT_EQ(j.judge(400, none, false), answer_verdict::dead_letter);
}

TEST(AnswerJudge, RetriableAnswersAndAuthFailuresNeitherEndNorExtendTheRun) {
  answer_judge j{answer_judge_settings{{401, 403}, 3}};
  EXPECT_EQ(j.judge(400, none, false), answer_verdict::dead_letter);
  EXPECT_EQ(j.judge(503, none, false), answer_verdict::retry);
  EXPECT_EQ(j.judge(401, none, false), answer_verdict::endpoint_failure);
  EXPECT_EQ(j.judge(0, transport_error::reset, false), answer_verdict::retry);
  EXPECT_EQ(j.permanent_run(), 1);
  EXPECT_EQ(j.judge(400, none, false), answer_verdict::dead_letter);
  EXPECT_EQ(j.judge(400, none, false), answer_verdict::endpoint_failure);
}

TEST(AnswerJudge, TheProbesPermanentAnswerIsDeadLetteredSoABadTopicStillDrains) {
  answer_judge j{answer_judge_settings{{401, 403}, 2}};
  EXPECT_EQ(j.judge(400, none, false), answer_verdict::dead_letter);
  EXPECT_EQ(j.judge(400, none, false), answer_verdict::endpoint_failure);
  EXPECT_EQ(j.judge(400, none, /*probe=*/true), answer_verdict::dead_letter);
  EXPECT_EQ(j.judge(400, none, false), answer_verdict::endpoint_failure)
      << "the run goes on after the probe: only probes drain";
}

TEST(AnswerJudge, ZeroDisablesTheRunRule) {
  answer_judge j{answer_judge_settings{{401, 403}, 0}};
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(j.judge(400, none, false), answer_verdict::dead_letter);
  }
}

TEST(AnswerJudge, TheSsrfGuardsRefusalIsAnEndpointFailureEvenForTheProbe) {
  answer_judge j{answer_judge_settings{{401, 403}, 2}};
  EXPECT_EQ(j.judge(0, transport_error::ssrf_blocked, false), answer_verdict::endpoint_failure);
  EXPECT_EQ(j.judge(0, transport_error::ssrf_blocked, true), answer_verdict::endpoint_failure)
      << "a probe is refused the same way: nothing is ever dead-lettered for it";
  EXPECT_EQ(j.permanent_run(), 0) << "it is about the route, not a run of records";
  EXPECT_EQ(j.judge(0, transport_error::tls, false), answer_verdict::retry);
}

}  // namespace
}  // namespace courier
