#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace courier::kafka {

// Creates each (name, partitions) topic with the broker's default replication factor;
// a topic that already exists is fine. Throws kafka_error naming the first topic that failed.
void create_topics(const std::string& bootstrap,
                   const std::vector<std::pair<std::string, int>>& topics,
                   std::chrono::milliseconds timeout);

// A topic to create, with topic-level configs (e.g. cleanup.policy=compact).
struct new_topic_spec {
  std::string name;
  int partitions = 1;
  std::map<std::string, std::string> config;
};

// As above, with each topic's configs. (A distinct name: an overload would make braced calls
// of create_topics ambiguous.)
void create_topics_with_config(const std::string& bootstrap,
                               const std::vector<new_topic_spec>& topics,
                               std::chrono::milliseconds timeout);

// The group's committed offsets for partitions [0, partitions) of `topic`; a partition with
// no committed offset is absent from the map.
std::map<std::int32_t, std::int64_t> committed_offsets(const std::string& bootstrap,
                                                       const std::string& group,
                                                       const std::string& topic, int partitions,
                                                       std::chrono::milliseconds timeout);

// Grows `topic` to `total` partitions (CreatePartitions); throws kafka_error if the broker
// refuses, e.g. when the topic already has more.
void create_partitions(const std::string& bootstrap, const std::string& topic, int total,
                       std::chrono::milliseconds timeout);

// How many partitions `topic` has; throws kafka_error naming the topic if it is unknown.
int partition_count(const std::string& bootstrap, const std::string& topic,
                    std::chrono::milliseconds timeout);

}  // namespace courier::kafka
