#include "topology/topics.hpp"

#include <thread>
#include <utility>

#include "core/kafka/admin.hpp"
#include "core/kafka/error.hpp"
#include "core/retry/retry_tiers.hpp"

namespace courier::topology {
namespace {

bool topic_exists(const std::string& brokers, const std::string& topic,
                  std::chrono::milliseconds timeout) {
  try {
    return kafka::partition_count(brokers, topic, timeout) > 0;
  } catch (const kafka::kafka_error& e) {
    if (e.code() == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
        e.code() == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
      return false;
    }
    throw;
  }
}

void create_topic(const std::string& brokers, const std::string& topic, int partitions,
                  std::chrono::milliseconds timeout) {
  const std::vector<std::pair<std::string, int>> one{{topic, partitions}};
  kafka::create_topics(brokers, one, timeout);
}

// Partitions of `topic` in the metadata, 0 while the cluster does not know it (yet).
int visible_partitions(const std::string& brokers, const std::string& topic,
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

// A created topic (or added partitions) reaches the metadata of every broker a moment after
// the controller answered; `courier run` started right after must find them.
void wait_until_visible(const std::string& brokers, const std::string& topic, int partitions,
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

}  // namespace

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
    if (!topic_exists(cfg.kafka.brokers, t, timeout)) {
      missing.push_back(t);
    }
  }
  return missing;
}

std::vector<std::string> ensure_topics(const courier_config& cfg, int source_partitions,
                                       std::chrono::milliseconds timeout) {
  std::vector<std::string> created;
  for (const auto& route : cfg.routes) {
    if (!topic_exists(cfg.kafka.brokers, route.topic, timeout)) {
      create_topic(cfg.kafka.brokers, route.topic, source_partitions, timeout);
      created.push_back(route.topic);
    }
    wait_until_visible(cfg.kafka.brokers, route.topic, 1, timeout);
    const int partitions = kafka::partition_count(cfg.kafka.brokers, route.topic, timeout);
    auto derived = route_topics_to_consume(route);
    derived.erase(derived.begin());
    derived.push_back(dlq_topic_of(route));
    for (const auto& t : derived) {
      const int existing = visible_partitions(cfg.kafka.brokers, t, timeout);
      if (existing == 0) {
        create_topic(cfg.kafka.brokers, t, partitions, timeout);
        created.push_back(t);
      } else if (existing < partitions) {
        // The source grew: tier and DLQ records keep their partition number where it exists.
        kafka::create_partitions(cfg.kafka.brokers, t, partitions, timeout);
      }
      wait_until_visible(cfg.kafka.brokers, t, partitions, timeout);
    }
  }
  return created;
}

}  // namespace courier::topology
