#include "topology/topics.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <thread>
#include <utility>

#include "core/kafka/admin.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka/max_message_bytes.hpp"
#include "core/retry/header_allowance.hpp"

namespace courier::topology {
namespace {

constexpr std::string_view max_message_bytes_key = "max.message.bytes";

void create_topic(const kafka::cluster& brokers, const std::string& topic, int partitions,
                  std::chrono::milliseconds timeout) {
  const std::vector<std::pair<std::string, int>> one{{topic, partitions}};
  kafka::create_topics(brokers, one, timeout);
}

// Known to the cluster (a topic still electing its leaders counts as not yet: creating it again
// is harmless, create_topics accepts one that exists).
bool topic_exists(const kafka::cluster& brokers, const std::string& topic,
                  std::chrono::milliseconds timeout) {
  return kafka::visible_partitions(brokers, topic, timeout) > 0;
}

// A changed config reaches the broker that answers DescribeConfigs (and takes produce
// requests) a moment after the controller accepted it.
void wait_until_size_shows(const kafka::cluster& brokers, const std::string& topic,
                           std::int64_t at_least, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::int64_t seen = 0;
  while ((seen = kafka::max_message_bytes(brokers, topic, timeout)) < at_least) {
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

std::vector<std::string> required_topics(const courier_config& cfg) {
  std::vector<std::string> out;
  for (const auto& route : cfg.routes) {
    for (auto& t : topics_of(route).all()) {
      out.push_back(std::move(t));
    }
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

ensure_report ensure_topics_report(const courier_config& cfg, int source_partitions,
                                   std::chrono::milliseconds timeout) {
  const kafka::cluster brokers = cluster_of(cfg);
  ensure_report report;
  for (const auto& route : cfg.routes) {
    if (!topic_exists(brokers, route.topic, timeout)) {
      create_topic(brokers, route.topic, source_partitions, timeout);
      report.created.push_back(route.topic);
    }
    kafka::wait_until_visible(brokers, route.topic, 1, timeout);
    const int partitions = kafka::partition_count(brokers, route.topic, timeout);
    // The effective value: the topic's override, else the broker's default.
    const std::int64_t needed =
        tier_max_message_bytes(kafka::max_message_bytes(brokers, route.topic, timeout));
    for (const auto& t : topics_of(route).onward()) {
      topic_size size;
      size.topic = t;
      size.source = route.topic;
      size.needed = needed;
      const int existing = kafka::visible_partitions(brokers, t, timeout);
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
      kafka::wait_until_visible(brokers, t, partitions, timeout);
      // Also for a topic just created: someone else may have created it first.
      size.before = kafka::max_message_bytes(brokers, t, timeout);
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
