// `topics ensure` on a real broker sizes the tier and DLQ topics for the source's largest
// record plus courier's headers: it creates tiers with that max.message.bytes, raises a
// pre-created DLQ's smaller one without losing the DLQ's other overrides, and a producer with
// message.max.bytes raised to the figure it prints writes a 1.9 MB record with courier-sized
// headers to the DLQ.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "core/kafka/admin.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka/producer.hpp"
#include "core/retry/retry_headers.hpp"
#include "core/retry/header_allowance.hpp"
#include "core/retry/retry_tiers.hpp"
#include "tests/e2e/e2e_support.hpp"
#include "topology/pipeline.hpp"
#include "topology/topics.hpp"

namespace courier::e2e {
namespace {

std::int64_t max_message_bytes_of(const std::string& topic) {
  const auto config = kafka::describe_topic_config(kafka_environment::bootstrap(), topic, 15s);
  return std::stoll(config.at("max.message.bytes"));
}

// `courier topics ensure` once more; its output.
std::string run_ensure(const std::filesystem::path& config, const std::filesystem::path& dir,
                       const std::string& name) {
  courier_process ensure{{"topics", "ensure", "--config", config.string()},
                         {"HMAC_SECRET=" + e2e_secret()},
                         (dir / (name + ".log")).string()};
  const auto code = ensure.wait_exit(60s);
  EXPECT_TRUE(code.has_value() && *code == 0) << ensure.log();
  return ensure.log();
}

// The headers courier puts on a DLQ record, every capped value as long as the cap allows.
header_list courier_sized_headers(const std::string& source) {
  record r;
  r.topic = source;
  r.partition = 1;
  r.offset = std::numeric_limits<std::int64_t>::max();
  r.timestamp_ms = 1'700'000'000'000;
  failure_info f;
  f.error_class = std::string(4000, 'c');
  f.error_message = std::string(4000, 'm');
  f.status = 413;
  f.response_excerpt = std::string(4000, 'r');
  for (int i = 0; i < 20; ++i) {
    f.trace.push_back(std::string(200, 'e'));
  }
  f.attempts = 4;
  f.failed_at_ms = 1'700'000'000'000;
  destination dlq;
  dlq.what = destination::kind::dlq;
  dlq.topic = default_dlq_topic(source);
  return retry_headers(r, std::string(4000, 'o'), dlq, f, 1'700'000'000'000);
}

TEST(TopicsEnsure, SizesTiersAndDlqForTheSourcesLargestRecordAndKeepsTheDlqsOverrides) {
  const temp_dir scratch{"e2e-topics-ensure", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  const std::string bootstrap = kafka_environment::bootstrap();
  courier_settings s{unique_name("ensure-group"), unique_name("big"), "http://127.0.0.1:9/hook"};
  const std::string dlq = default_dlq_topic(s.topic);
  kafka::create_topics_with_config(
      bootstrap,
      {{s.topic, 2, {{"max.message.bytes", "2000000"}}},
       {dlq, 2, {{"max.message.bytes", "100000"}, {"retention.ms", "86400000"}}}},
      30s);

  const auto config = courier::testing::write_config(e2e_config(s), dir);
  const std::string out = run_ensure(config, dir, "topics-ensure");

  const std::int64_t needed = 2'000'000 + courier_header_allowance();
  // No wait: ensure returned only once the broker reported every size.
  for (const auto delay : s.retry_tiers) {
    const std::string tier = tier_topic(s.topic, delay);
    EXPECT_GE(max_message_bytes_of(tier), needed) << tier;
    EXPECT_NE(out.find("sized    " + tier + " max.message.bytes=" + std::to_string(needed)),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("created  " + tier), std::string::npos) << out;
  }
  EXPECT_GE(max_message_bytes_of(dlq), needed);
  const auto overrides = kafka::topic_config_overrides(bootstrap, dlq, 15s);
  EXPECT_EQ(overrides.count("retention.ms") == 1 ? overrides.at("retention.ms") : "(lost)",
            "86400000");
  EXPECT_NE(out.find("raised   " + dlq + " max.message.bytes 100000 -> " + std::to_string(needed) +
                     " (other overrides kept: retention.ms=86400000)"),
            std::string::npos)
      << out;

  // A 1.9 MB record with courier's headers: refused by librdkafka's default message.max.bytes,
  // written by a producer with the retry router's properties, uncompressed so that the DLQ's
  // size is what takes it.
  const std::string value(1'900'000, 'x');
  const header_list headers = courier_sized_headers(s.topic);
  {
    kafka::producer small{bootstrap};
    EXPECT_THROW(small.produce(dlq, 0, std::string{"k"}, value, headers), kafka::kafka_error);
  }
  auto uncompressed = topology::retry_producer_properties(e2e_config(s));
  uncompressed["compression.type"] = "none";
  kafka::producer p{bootstrap, uncompressed};
  p.produce(s.topic, 0, std::string{"k"}, value);  // the source takes it
  p.produce(dlq, 0, std::string{"k"}, value, headers);
  p.flush(30s);
  EXPECT_EQ(p.failed(), 0U);
  EXPECT_EQ(p.acked(), 2U);

  // Once more: nothing to do, every size fits.
  const std::string again = run_ensure(config, dir, "topics-ensure-again");
  EXPECT_NE(again.find("fits     " + dlq + " max.message.bytes=" + std::to_string(needed)),
            std::string::npos)
      << again;
  EXPECT_EQ(kafka::topic_config_overrides(bootstrap, dlq, 15s).count("retention.ms"), 1U);
}

}  // namespace
}  // namespace courier::e2e
