// A producer-chosen idempotency key that courier cannot send as it is (issue 48), on the suite's
// real broker: one source record with a 900 KB binary `courier.idempotency.key` among ordinary
// records of the same partition, receipts on. Every record is delivered or dead-lettered, the
// partition's committed offset reaches its end, and the odd record's receipt is keyed by the
// key's digest form (sha256:<hex>), not by 2.7 MB of percent-encoding that no tier, DLQ or
// receipt record could hold.

#include <chrono>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "core/crypto/sha256.hpp"
#include "core/kafka/producer.hpp"
#include "core/retry/retry_tiers.hpp"
#include "tests/e2e/e2e_support.hpp"

namespace courier::e2e {
namespace {

constexpr std::size_t ordinary = 100;  // before and after the odd record each

TEST(EndToEndHostileKey, ARecordWithA900KbBinaryKeyIsDeliveredAndBlocksNothing) {
  temp_dir scratch{"e2e-hostile-key", temp_dir::keep_if_failed};
  webhook w{scratch.path(), /*latency_ms=*/0};
  courier_settings s{unique_name("hostile-key-group"), unique_name("hostile-key"), w.url()};
  create_topic(s.topic, 1);
  const std::string receipts = s.topic + ".receipts";
  const auto config = prepare_with(s, {{"receipts_topic", receipts}}, scratch.path());

  std::string blob(900 * 1024, '\0');
  for (std::size_t i = 0; i < blob.size(); ++i) {
    blob[i] = static_cast<char>((i * 131U) ^ (i >> 8U));
  }
  {
    // The broker's max.message.bytes is about 1 MB: the 900 KB header fits one record.
    kafka::producer p{kafka_environment::bootstrap(), {{"message.max.bytes", "1000000"}}};
    for (std::size_t i = 0; i < 2 * ordinary + 1; ++i) {
      header_list headers;
      if (i == ordinary) {
        headers.emplace_back("courier.idempotency.key", blob);
      }
      p.produce(s.topic, 0, demo::shipment_id(i), demo::make_shipment(i, 7), headers);
    }
    p.flush(30s);
    ASSERT_EQ(p.failed(), 0U);
    ASSERT_EQ(p.acked(), 2 * ordinary + 1);
  }

  auto c = start_courier(config, scratch.path(), "courier");
  const auto total = static_cast<std::int64_t>(2 * ordinary + 1);
  end_offsets_probe probe{"read_uncommitted"};
  const auto dlq = default_dlq_topic(s.topic);
  ASSERT_TRUE(wait_until(
      [&] {
        const auto dead = probe.total(dlq, 1, 5s).value_or(0);
        return !c->running() || static_cast<std::int64_t>(w.ok()) + dead >= total;
      },
      90s))
      << tail(c->log());
  ASSERT_TRUE(c->running()) << tail(c->log());
  EXPECT_TRUE(committed_reaches(s.group, s.topic, 1, total)) << tail(c->log());

  // The odd record's receipt names it by the digest of its key.
  const std::string digest = "sha256:" + sha256_hex(blob);
  bool found = false;
  for (const auto& r : read_to_end(receipts, 1, "read_uncommitted", 30s)) {
    EXPECT_LT(r.key ? r.key->size() : 0U, 300U);
    found = found || (r.key && *r.key == digest);
  }
  const auto dead = probe.total(dlq, 1, 5s).value_or(0);
  EXPECT_TRUE(found || dead > 0) << "the odd record is neither receipted nor dead-lettered";
  EXPECT_EQ(static_cast<std::int64_t>(w.settled_stats().ok) + dead, total) << w.stats().raw;
  expect_clean_stop(*c);
}

}  // namespace
}  // namespace courier::e2e
