#include "tools/redrive/setup.hpp"

#include "core/kafka/admin.hpp"
#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"
#include "core/time/duration.hpp"

#include <chrono>
#include <optional>
#include <utility>

namespace courier::redrive {
namespace {

std::string topic_problem(const options& o, const std::string& topic, const kafka::kafka_error& e) {
  if (e.code() == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
    return "topic '" + topic + "' does not exist on " + o.bootstrap;
  }
  return "cannot reach Kafka at " + o.bootstrap + " within " + format_duration(o.timeout) + " (" +
         e.what() + ")";
}

// Ledger partitions; nothing when the ledger does not exist yet.
std::optional<int> ledger_partitions(kafka::range_reader& reader, const options& o) {
  try {
    return reader.partition_count(o.ledger_topic);
  } catch (const kafka::kafka_error& e) {
    if (e.code() == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
      return std::nullopt;
    }
    throw setup_error(topic_problem(o, o.ledger_topic, e));
  }
}

}  // namespace

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int checked_partition_count(kafka::range_reader& reader, const options& o,
                            const std::string& topic) {
  try {
    return reader.partition_count(topic);
  } catch (const kafka::kafka_error& e) {
    throw setup_error(topic_problem(o, topic, e));
  }
}

int ensure_ledger(kafka::range_reader& reader, const options& o) {
  if (const auto n = ledger_partitions(reader, o)) {
    return *n;
  }
  try {
    kafka::create_topics_with_config(
        cluster_of(o), {kafka::new_topic_spec{o.ledger_topic, 1, {{"cleanup.policy", "compact"}}}},
        o.timeout);
  } catch (const kafka::kafka_error& e) {
    throw setup_error("cannot create the ledger topic '" + o.ledger_topic + "' (" + e.what() +
                      "); create it (compacted) and run again");
  }
  return checked_partition_count(reader, o, o.ledger_topic);
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

ledger existing_ledger(kafka::range_reader& reader, const options& o) {
  const auto n = ledger_partitions(reader, o);
  return n ? load_ledger(reader, o.ledger_topic, *n) : ledger{};
}

plan_settings settings_of(const options& o) {
  return plan_settings{o.select, o.to, o.home_topics, o.max_redrives, o.force};
}

}  // namespace courier::redrive
