#include "core/redrive/setup.hpp"

#include "core/kafka/admin.hpp"
#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"
#include "core/time/duration.hpp"

#include <chrono>
#include <optional>
#include <utility>

namespace courier::redrive {
namespace {

std::string topic_problem(const request& r, const std::string& topic, const kafka::kafka_error& e) {
  if (e.code() == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
    return "topic '" + topic + "' does not exist on " + r.cluster.bootstrap;
  }
  return "cannot reach Kafka at " + r.cluster.bootstrap + " within " + format_duration(r.timeout) +
         " (" + e.what() + ")";
}

// Ledger partitions; nothing when the ledger does not exist yet.
std::optional<int> ledger_partitions(kafka::range_reader& reader, const request& r) {
  try {
    return reader.partition_count(r.ledger_topic);
  } catch (const kafka::kafka_error& e) {
    if (e.code() == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
      return std::nullopt;
    }
    throw setup_error(topic_problem(r, r.ledger_topic, e));
  }
}

}  // namespace

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int checked_partition_count(kafka::range_reader& reader, const request& r,
                            const std::string& topic) {
  try {
    return reader.partition_count(topic);
  } catch (const kafka::kafka_error& e) {
    throw setup_error(topic_problem(r, topic, e));
  }
}

int ensure_ledger(kafka::range_reader& reader, const request& r) {
  if (const auto n = ledger_partitions(reader, r)) {
    return *n;
  }
  try {
    kafka::create_topics_with_config(
        r.cluster, {kafka::new_topic_spec{r.ledger_topic, 1, {{"cleanup.policy", "compact"}}}},
        r.timeout);
  } catch (const kafka::kafka_error& e) {
    throw setup_error("cannot create the ledger topic '" + r.ledger_topic + "' (" + e.what() +
                      "); create it (compacted) and run again");
  }
  try {
    kafka::wait_until_visible(r.cluster, r.ledger_topic, 1, r.timeout);
  } catch (const kafka::kafka_error& e) {
    throw setup_error(topic_problem(r, r.ledger_topic, e));
  }
  return checked_partition_count(reader, r, r.ledger_topic);
}

ledger load_ledger(kafka::range_reader& reader, const std::string& topic, int partitions) {
  ledger l;
  reader.read(topic, reader.ranges(topic, partitions), [&l](record&& r) {
    if (r.key) {
      l.apply(*r.key, /*tombstone=*/r.value.empty());
    }
    return true;
  });
  return l;
}

ledger existing_ledger(kafka::range_reader& reader, const request& r) {
  const auto n = ledger_partitions(reader, r);
  return n ? load_ledger(reader, r.ledger_topic, *n) : ledger{};
}

plan_settings settings_of(const request& r) {
  return plan_settings{r.select, r.to, r.home_topics, r.max_redrives, r.force};
}

}  // namespace courier::redrive
