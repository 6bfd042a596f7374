#include "tools/redrive/redrive_headers.hpp"

#include "core/retry/retry_headers.hpp"

#include <gtest/gtest.h>

namespace courier::redrive {
namespace {

TEST(RedriveHeaders, DropErrorAndRetryHeadersKeepTheRestAndAddRedriveHeaders) {
  const header_list dlq{{"content-type", "application/json"},
                        {"courier.idempotency.key", "brew.shipments.v1:0:7"},
                        {"courier.origin.topic", "brew.shipments.v1"},
                        {"courier.attempts", "4"},
                        {"courier.retry.tier", "2"},
                        {"courier.retry.due", "123"},
                        {"courier.error.class", "http_503"},
                        {"courier.error.trace", "x"},
                        {"courier.followers", "8,9"},
                        {"courier.last.failure", "5"},
                        {"courier.redrive.count", "1"},
                        {"courier.redrive.from", "old:0:0"}};
  const header_list out = redrive_headers(dlq, 1, 1000, "brew.shipments.dlq:0:42");
  const header_list expected{{"content-type", "application/json"},
                             {"courier.idempotency.key", "brew.shipments.v1:0:7"},
                             {"courier.origin.topic", "brew.shipments.v1"},
                             {"courier.attempts", "4"},
                             {"courier.last.failure", "5"},
                             {"courier.redrive.count", "2"},
                             {"courier.redrive.at", "1000"},
                             {"courier.redrive.from", "brew.shipments.dlq:0:42"}};
  EXPECT_EQ(out, expected);
}

TEST(RedriveHeaders, LoopGuardRefusesAtTheLimitUnlessForced) {
  EXPECT_EQ(loop_guard(0, 3, false), guard_verdict::allowed);
  EXPECT_EQ(loop_guard(2, 3, false), guard_verdict::allowed);
  EXPECT_EQ(loop_guard(3, 3, false), guard_verdict::refused);
  EXPECT_EQ(loop_guard(7, 3, false), guard_verdict::refused);
  EXPECT_EQ(loop_guard(3, 3, true), guard_verdict::forced);
}

}  // namespace
}  // namespace courier::redrive
