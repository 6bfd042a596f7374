// The head-of-line bound (DESIGN.md section 4, uForwarder's HeadBlockingDetector): a record
// that keeps failing in its in-process backoff does not hold its partition's commit point
// back by more than the bound; it moves to the next retry tier at once.

#include <gtest/gtest.h>

#include "tests/integration/stand.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

TEST(HeadOfLine, AFailingHeadMovesToATierSoTheCommittedOffsetKeepsUp) {
  stand s{1};
  s.route().head_of_line_records = 50;
  // In process, the head would retry for minutes before it ran out of attempts.
  s.route().retry.max_attempts = 1000;
  s.route().retry.initial = 200ms;
  s.route().retry.max = 200ms;
  s.receiver->set_key_rule("brew.shipments.v1:0:0", mock::key_rule{503, -1});
  s.seed(300);
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, topology::pipeline_options{2s, 3}};
  const auto& m = *p.routes().front().metrics;

  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 299; }, 60s))
      << "delivered " << s.receiver->snapshot().ok;
  EXPECT_TRUE(wait_until([&] { return s.committed_total() == 300; }, 30s))
      << "the source partition commits past its failing head; committed " << s.committed_total();
  EXPECT_GE(m.deliveries[delivery_counter::head_of_line_moves].load(), 1U);
  EXPECT_GE(m.deliveries[delivery_counter::retried].load(), 1U) << "the head went to a retry tier";
  EXPECT_EQ(m.deliveries[delivery_counter::dead_lettered].load(), 0U);

  // The partner fixes that record: the tier delivers it; every record delivered once.
  s.receiver->set_key_rule("brew.shipments.v1:0:0", mock::key_rule{503, 0});
  ASSERT_TRUE(wait_until([&] { return s.receiver->snapshot().ok >= 300; }, 60s))
      << "delivered " << s.receiver->snapshot().ok;
  p.stop();
  EXPECT_EQ(s.receiver->snapshot().ok, 300U);
  EXPECT_EQ(s.receiver->snapshot().duplicates, 0U);
}

}  // namespace
}  // namespace courier::testing
