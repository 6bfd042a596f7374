#include "topology/topics.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>
#include <thread>
#include <utility>

#include "core/kafka/admin.hpp"
#include "core/kafka/error.hpp"
#include "core/model/decimal.hpp"
#include "core/retry/header_value.hpp"
#include "core/retry/retry_headers.hpp"
#include "core/retry/retry_tiers.hpp"

namespace courier::topology {
namespace {

constexpr std::string_view max_message_bytes_key = "max.message.bytes";

// Every header retry_headers sets on a tier or DLQ record (courier.retry.due only on a tier
// record; counted for both).
constexpr std::array<std::string_view, 17> courier_headers{
    idempotency_key_header,  route_header,         origin_topic_header,
    origin_partition_header, origin_offset_header, origin_timestamp_header,
    attempts_header,         retry_tier_header,    retry_due_header,
    error_class_header,      error_message_header, error_status_header,
    error_response_header,   error_trace_header,   first_failure_header,
    last_failure_header,     correlation_id_header};

// A varint of a 32-bit length is at most 5 bytes.
constexpr std::int64_t max_varint32_bytes = 5;

// A tier or DLQ record is the source record (key, value, its own headers) minus the headers
// courier rewrites, plus courier's headers (a header set again replaces its old copy, a
// duplicate is dropped), so it outgrows the source record by at most the encoded size of
// courier's headers. Kafka's record format (v2) encodes each header as varint(name length),
// name, varint(value length), value. Each value is at most max_header_value bytes:
//  - route, origin topic, error class, message and response: cap_header_value;
//  - the trace: merged_trace keeps it within max_header_value;
//  - partition, offset, timestamp, attempts, tier, due, status, first and last failure: at most
//    20 digits and a sign;
//  - idempotency key and correlation id: "<topic>:<partition>:<offset>" is at most
//    249 + 1 + 10 + 1 + 19 = 280 bytes; a key carried in with the record replaces the record's
//    own copy (counted in the record already); only a carried key longer than
//    max_header_value (never one courier made) would make a copied correlation id longer.
// The record's own length and header count are varints that may grow, by at most 5 bytes each.
// 17 headers: names 340 bytes + values 17 x 1024 = 17408 + their length varints 17 x 2 x 5 = 170,
// plus 2 x 5 = 10 for the record: 340 + 17408 + 170 + 10 = 17928 bytes.
constexpr std::int64_t header_allowance() {
  std::int64_t bytes = 2 * max_varint32_bytes;
  for (const auto name : courier_headers) {
    bytes += static_cast<std::int64_t>(name.size() + max_header_value) + 2 * max_varint32_bytes;
  }
  return bytes;
}
static_assert(header_allowance() == 17928, "the arithmetic in the comment above");

void create_topic(const kafka::cluster& brokers, const std::string& topic, int partitions,
                  std::chrono::milliseconds timeout) {
  const std::vector<std::pair<std::string, int>> one{{topic, partitions}};
  kafka::create_topics(brokers, one, timeout);
}

// Partitions of `topic` in the metadata, 0 while the cluster does not know it (yet).
int visible_partitions(const kafka::cluster& brokers, const std::string& topic,
                       std::chrono::milliseconds timeout) {
  try {
    return kafka::partition_count(brokers, topic, timeout);
  } catch (const kafka::kafka_error& e) {
    if (e.code() == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
        e.code() == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
        e.code() == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE) {
      return 0;
    }
    throw;
  }
}

// Known to the cluster (a topic still electing its leaders counts as not yet: creating it again
// is harmless, create_topics accepts one that exists).
bool topic_exists(const kafka::cluster& brokers, const std::string& topic,
                  std::chrono::milliseconds timeout) {
  return visible_partitions(brokers, topic, timeout) > 0;
}

// A created topic (or added partitions) reaches the metadata of every broker a moment after
// the controller answered; `courier run` started right after must find them.
void wait_until_visible(const kafka::cluster& brokers, const std::string& topic, int partitions,
                        std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int seen = 0;
  while ((seen = visible_partitions(brokers, topic, timeout)) < partitions) {
    if (std::chrono::steady_clock::now() >= deadline) {
      throw kafka::kafka_error(RD_KAFKA_RESP_ERR__TIMED_OUT, "waiting for topic '" + topic +
                                                                 "' to show " +
                                                                 std::to_string(partitions) +
                                                                 " partitions in the metadata "
                                                                 "(it shows " +
                                                                 std::to_string(seen) + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
}

// The effective max.message.bytes of `topic` (its override, else the broker's default).
std::int64_t max_message_bytes(const kafka::cluster& brokers, const std::string& topic,
                               std::chrono::milliseconds timeout) {
  const auto config = kafka::describe_topic_config(brokers, topic, timeout);
  const auto it = config.find(std::string{max_message_bytes_key});
  const std::string doing =
      "reading " + std::string{max_message_bytes_key} + " of topic '" + topic + "'";
  if (it == config.end()) {
    throw kafka::kafka_error(RD_KAFKA_RESP_ERR__FAIL, doing, "the broker does not report it");
  }
  const auto value = parse_decimal<std::int64_t>(it->second);
  if (!value || *value <= 0) {
    throw kafka::kafka_error(RD_KAFKA_RESP_ERR__FAIL, doing, "not a size: \"" + it->second + "\"");
  }
  return *value;
}

// A changed config reaches the broker that answers DescribeConfigs (and takes produce
// requests) a moment after the controller accepted it.
void wait_until_size_shows(const kafka::cluster& brokers, const std::string& topic,
                           std::int64_t at_least, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::int64_t seen = 0;
  while ((seen = max_message_bytes(brokers, topic, timeout)) < at_least) {
    if (std::chrono::steady_clock::now() >= deadline) {
      throw kafka::kafka_error(
          RD_KAFKA_RESP_ERR__TIMED_OUT,
          "waiting for topic '" + topic + "' to show " + std::string{max_message_bytes_key} +
              " >= " + std::to_string(at_least) + " (it shows " + std::to_string(seen) + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
}

}  // namespace

kafka::cluster cluster_of(const courier_config& cfg) {
  return {cfg.kafka.brokers, kafka::connection_properties(cfg.kafka.properties)};
}

std::vector<std::string> route_topics_to_consume(const route_config& route) {
  std::vector<std::string> topics{route.topic};
  for (const auto delay : route.retry_tiers) {
    topics.push_back(tier_topic(route.topic, delay));
  }
  return topics;
}

std::string dlq_topic_of(const route_config& route) {
  return route.dlq_topic.empty() ? default_dlq_topic(route.topic) : route.dlq_topic;
}

std::vector<std::string> required_topics(const courier_config& cfg) {
  std::vector<std::string> out;
  for (const auto& route : cfg.routes) {
    for (auto& t : route_topics_to_consume(route)) {
      out.push_back(std::move(t));
    }
    out.push_back(dlq_topic_of(route));
  }
  return out;
}

std::vector<std::string> missing_topics(const courier_config& cfg,
                                        std::chrono::milliseconds timeout) {
  std::vector<std::string> missing;
  for (const auto& t : required_topics(cfg)) {
    if (!topic_exists(cluster_of(cfg), t, timeout)) {
      missing.push_back(t);
    }
  }
  return missing;
}

std::vector<std::string_view> courier_header_names() {
  return {courier_headers.begin(), courier_headers.end()};
}

std::int64_t courier_header_allowance() { return header_allowance(); }

std::int64_t tier_max_message_bytes(std::int64_t source_max_message_bytes) {
  return source_max_message_bytes + header_allowance();
}

std::int64_t retry_producer_message_max_bytes(const courier_config& cfg,
                                              std::chrono::milliseconds timeout) {
  std::int64_t bytes = ensure_report{}.producer_message_max_bytes;
  for (const auto& route : cfg.routes) {
    bytes = std::max(
        bytes, tier_max_message_bytes(max_message_bytes(cluster_of(cfg), route.topic, timeout)));
  }
  return bytes;
}

ensure_report ensure_topics_report(const courier_config& cfg, int source_partitions,
                                   std::chrono::milliseconds timeout) {
  const kafka::cluster brokers = cluster_of(cfg);
  ensure_report report;
  for (const auto& route : cfg.routes) {
    if (!topic_exists(brokers, route.topic, timeout)) {
      create_topic(brokers, route.topic, source_partitions, timeout);
      report.created.push_back(route.topic);
    }
    wait_until_visible(brokers, route.topic, 1, timeout);
    const int partitions = kafka::partition_count(brokers, route.topic, timeout);
    // The effective value: the topic's override, else the broker's default.
    const std::int64_t needed =
        tier_max_message_bytes(max_message_bytes(brokers, route.topic, timeout));
    report.producer_message_max_bytes = std::max(report.producer_message_max_bytes, needed);
    auto derived = route_topics_to_consume(route);
    derived.erase(derived.begin());
    derived.push_back(dlq_topic_of(route));
    for (const auto& t : derived) {
      topic_size size;
      size.topic = t;
      size.source = route.topic;
      size.needed = needed;
      const int existing = visible_partitions(brokers, t, timeout);
      if (existing == 0) {
        kafka::create_topics_with_config(
            brokers,
            {{t, partitions, {{std::string{max_message_bytes_key}, std::to_string(needed)}}}},
            timeout);
        report.created.push_back(t);
        size.what = topic_size::kind::created;
      } else if (existing < partitions) {
        // The source grew: tier and DLQ records keep their partition number where it exists.
        kafka::create_partitions(brokers, t, partitions, timeout);
      }
      wait_until_visible(brokers, t, partitions, timeout);
      // Also for a topic just created: someone else may have created it first.
      size.before = max_message_bytes(brokers, t, timeout);
      size.after = size.before;
      if (size.before < needed) {
        for (auto& [name, value] : kafka::set_topic_config(
                 brokers, t, std::string{max_message_bytes_key}, std::to_string(needed), timeout)) {
          size.kept_overrides.push_back(name + "=" + value);
        }
        wait_until_size_shows(brokers, t, needed, timeout);
        size.after = needed;
        if (size.what != topic_size::kind::created) {
          size.what = topic_size::kind::raised;
        }
      }
      report.sizes.push_back(std::move(size));
    }
  }
  return report;
}

std::vector<std::string> size_lines(const ensure_report& report) {
  std::vector<std::string> lines;
  for (const auto& s : report.sizes) {
    std::string line;
    switch (s.what) {
      case topic_size::kind::created:
        line = "sized    " + s.topic + " max.message.bytes=" + std::to_string(s.after);
        break;
      case topic_size::kind::raised: {
        line = "raised   " + s.topic + " max.message.bytes " + std::to_string(s.before) + " -> " +
               std::to_string(s.after) + " (other overrides kept: ";
        std::string kept;
        for (const auto& k : s.kept_overrides) {
          kept += (kept.empty() ? "" : ", ") + k;
        }
        line += (kept.empty() ? std::string{"none"} : kept) + ")";
        break;
      }
      case topic_size::kind::fits:
        line = "fits     " + s.topic + " max.message.bytes=" + std::to_string(s.after);
        break;
    }
    line += " (needs " + std::to_string(s.needed) + ": " + s.source + "'s max.message.bytes + " +
            std::to_string(courier_header_allowance()) + " for courier's headers)";
    lines.push_back(std::move(line));
  }
  lines.push_back(
      "producer message.max.bytes=" + std::to_string(report.producer_message_max_bytes) +
      " (at least: the retry router's producer writes records of up to that size)");
  return lines;
}

std::vector<std::string> ensure_topics(const courier_config& cfg, int source_partitions,
                                       std::chrono::milliseconds timeout) {
  auto report = ensure_topics_report(cfg, source_partitions, timeout);
  for (const auto& line : size_lines(report)) {
    std::printf("%s\n", line.c_str());
  }
  return std::move(report.created);
}

}  // namespace courier::topology
