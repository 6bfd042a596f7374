#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/kafka/cluster.hpp"
#include "core/model/offset_commit.hpp"

namespace courier::kafka {

// Creates each (name, partitions) topic with the broker's default replication factor;
// a topic that already exists is fine. Throws kafka_error naming the first topic that failed.
void create_topics(const cluster& at, const std::vector<std::pair<std::string, int>>& topics,
                   std::chrono::milliseconds timeout);

// A topic to create, with topic-level configs (e.g. cleanup.policy=compact).
struct new_topic_spec {
  std::string name;
  int partitions = 1;
  std::map<std::string, std::string> config;
};

// As above, with each topic's configs. (A distinct name: an overload would make braced calls
// of create_topics ambiguous.)
void create_topics_with_config(const cluster& at, const std::vector<new_topic_spec>& topics,
                               std::chrono::milliseconds timeout);

// The group's commits for partitions [0, partitions) of `topic`, each offset with its metadata
// (courier's offset map); a partition with no committed offset is absent from the map.
std::map<std::int32_t, offset_commit> committed_commits(const cluster& at, const std::string& group,
                                                        const std::string& topic, int partitions,
                                                        std::chrono::milliseconds timeout);

// The offsets alone of committed_commits.
std::map<std::int32_t, std::int64_t> committed_offsets(const cluster& at, const std::string& group,
                                                       const std::string& topic, int partitions,
                                                       std::chrono::milliseconds timeout);

// Grows `topic` to `total` partitions (CreatePartitions); throws kafka_error if the broker
// refuses, e.g. when the topic already has more.
void create_partitions(const cluster& at, const std::string& topic, int total,
                       std::chrono::milliseconds timeout);

// How many partitions `topic` has; throws kafka_error naming the topic if it is unknown.
int partition_count(const cluster& at, const std::string& topic, std::chrono::milliseconds timeout);
// Partitions of `topic` in the metadata, 0 while the cluster does not know it (yet).
int visible_partitions(const cluster& at, const std::string& topic,
                       std::chrono::milliseconds timeout);
// A created topic (or added partitions) reaches the metadata of every broker a moment after the
// controller answered: waits until `topic` shows `partitions`, within `timeout` (then throws
// kafka_error _TIMED_OUT naming what it shows).
void wait_until_visible(const cluster& at, const std::string& topic, int partitions,
                        std::chrono::milliseconds timeout);

// One entry of a topic's configuration as DescribeConfigs returns it: the effective value
// (the broker's default where the topic does not override it).
struct topic_config_entry {
  std::optional<std::string> value;  // nothing for a sensitive entry: the broker hides it
  bool is_override = false;          // set on this topic (source DYNAMIC_TOPIC_CONFIG)
  bool is_read_only = false;
};

// Every config entry of `topic` (DescribeConfigs). Throws kafka_error naming the topic, e.g.
// when it does not exist.
std::map<std::string, topic_config_entry> describe_topic_config_entries(
    const cluster& at, const std::string& topic, std::chrono::milliseconds timeout);

// The effective value of every config of `topic` (sensitive ones, whose value the broker hides,
// are left out). Throws kafka_error naming the topic.
std::map<std::string, std::string> describe_topic_config(const cluster& at,
                                                         const std::string& topic,
                                                         std::chrono::milliseconds timeout);

// The configs set on `topic` itself (its overrides), with their values.
std::map<std::string, std::string> topic_config_overrides(const cluster& at,
                                                          const std::string& topic,
                                                          std::chrono::milliseconds timeout);

// Sets `key`=`value` on `topic` and keeps every other override of the topic. librdkafka 2.0.2
// has no IncrementalAlterConfigs, and AlterConfigs replaces the topic's whole set of overrides,
// so this reads the overrides first and sends them all with the changed one (a change another
// client makes in between is lost). Returns the other overrides it kept. Throws kafka_error
// naming the topic and the key, also when an override is sensitive (its value cannot be read
// back, so it would be lost).
std::map<std::string, std::string> set_topic_config(const cluster& at, const std::string& topic,
                                                    const std::string& key,
                                                    const std::string& value,
                                                    std::chrono::milliseconds timeout);

}  // namespace courier::kafka
