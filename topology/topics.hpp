#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/config.hpp"
#include "core/kafka/cluster.hpp"
#include "core/retry/header_allowance.hpp"

namespace courier::topology {

// The cluster as the start-up checks and `topics ensure` reach it: kafka.brokers with the
// connection properties (security, SASL, SSL) of kafka.properties.
kafka::cluster cluster_of(const courier_config& cfg);

// Every topic the configuration needs: each route's source, tiers and DLQ (topics_of, in
// core/config, names a route's topics).
std::vector<std::string> required_topics(const courier_config& cfg);

// The required topics the broker does not have.
std::vector<std::string> missing_topics(const courier_config& cfg,
                                        std::chrono::milliseconds timeout);

// What `topics ensure` did about one tier or DLQ topic's max.message.bytes.
struct topic_size {
  enum class kind { created, raised, fits };
  std::string topic;
  std::string source;  // the route's source topic
  kind what = kind::fits;
  std::int64_t before = 0;  // the value it had (created: the value it was created with)
  std::int64_t after = 0;   // the value it has now
  std::int64_t needed = 0;  // tier_max_message_bytes of the source's
  std::vector<std::string> kept_overrides;  // raised: its other overrides, sent along
};

struct ensure_report {
  std::vector<std::string> created;
  std::vector<topic_size> sizes;  // one per tier and DLQ topic, in the order of required_topics
};

// `courier topics ensure`: creates every missing tier and DLQ topic with its source's partition
// count and a max.message.bytes of tier_max_message_bytes(the source's effective one); a
// missing source topic is created with `source_partitions`. Grows tier and DLQ topics with
// fewer partitions than the source, raises a smaller max.message.bytes (keeping their other
// overrides), and returns once the metadata shows every topic with its partitions and the
// broker reports every size.
ensure_report ensure_topics_report(const courier_config& cfg, int source_partitions,
                                   std::chrono::milliseconds timeout);

// One line per tier and DLQ topic saying what happened to its max.message.bytes.
std::vector<std::string> size_lines(const ensure_report& report);

// ensure_topics_report, its size_lines on stdout; returns the topics created.
std::vector<std::string> ensure_topics(const courier_config& cfg, int source_partitions,
                                       std::chrono::milliseconds timeout);

}  // namespace courier::topology
