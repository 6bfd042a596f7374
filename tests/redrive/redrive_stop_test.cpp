#include "tests/redrive/dlq_stand.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace courier::redrive::test {
namespace {

// SIGINT/SIGTERM (stop_requested) end a run between transactions; the next run moves the rest,
// each record once.
TEST(RedriveStop, AStopRequestEndsTheRunAtABatchBoundaryAndTheNextRunMovesTheRest) {
  dlq_stand stand;
  stand.park(parked_specs(30));
  // Asked once per record read and twice per batch (before it begins and before it commits):
  // the 16th question, while the second batch of 10 is being gathered, is the first "stop".
  int asked = 0;
  const run_result stopped =
      stand.run({"--batch", "10", "--json"}, [&asked] { return ++asked > 15; });
  EXPECT_EQ(stopped.code, 1) << stopped.err;
  EXPECT_NE(stopped.err.find("stopped by a signal"), std::string::npos) << stopped.err;
  EXPECT_EQ(nlohmann::json::parse(stopped.out).at("moved"), 10) << stopped.out;
  EXPECT_EQ(stand.read_all(dlq_stand::origin).size(), 10U);
  EXPECT_EQ(stand.read_all(dlq_stand::ledger_topic).size(), 10U);

  const run_result rest = stand.run({"--json"});
  ASSERT_EQ(rest.code, 0) << rest.err;
  EXPECT_EQ(nlohmann::json::parse(rest.out).at("moved"), 20);
  const auto counts = count_by_source(stand.read_all(dlq_stand::origin));
  EXPECT_EQ(counts.size(), 30U);
  for (const auto& [from, n] : counts) {
    EXPECT_EQ(n, 1) << from;
  }
}

}  // namespace
}  // namespace courier::redrive::test
