#pragma once

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <memory>

namespace courier::kafka {

// One deleter per librdkafka C handle, so every handle lives in a std::unique_ptr.
struct handle_deleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
// For a client that never joined a group (a configuration probe): destroyed without the
// consumer close, which would wait for a broker it may never have reached.
struct unjoined_handle_deleter {
  void operator()(rd_kafka_t* rk) const {
    rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  }
};
struct conf_deleter {
  void operator()(rd_kafka_conf_t* conf) const { rd_kafka_conf_destroy(conf); }
};
struct topic_deleter {
  void operator()(rd_kafka_topic_t* rkt) const { rd_kafka_topic_destroy(rkt); }
};
struct topic_partition_list_deleter {
  void operator()(rd_kafka_topic_partition_list_t* list) const {
    rd_kafka_topic_partition_list_destroy(list);
  }
};
struct message_deleter {
  void operator()(rd_kafka_message_t* msg) const { rd_kafka_message_destroy(msg); }
};
struct headers_deleter {
  void operator()(rd_kafka_headers_t* hdrs) const { rd_kafka_headers_destroy(hdrs); }
};
struct queue_deleter {
  void operator()(rd_kafka_queue_t* queue) const { rd_kafka_queue_destroy(queue); }
};
struct admin_options_deleter {
  void operator()(rd_kafka_AdminOptions_t* options) const {
    rd_kafka_AdminOptions_destroy(options);
  }
};
struct new_topic_deleter {
  void operator()(rd_kafka_NewTopic_t* topic) const { rd_kafka_NewTopic_destroy(topic); }
};
struct new_partitions_deleter {
  void operator()(rd_kafka_NewPartitions_t* p) const { rd_kafka_NewPartitions_destroy(p); }
};
struct event_deleter {
  void operator()(rd_kafka_event_t* event) const { rd_kafka_event_destroy(event); }
};
struct error_deleter {
  void operator()(rd_kafka_error_t* error) const { rd_kafka_error_destroy(error); }
};
struct metadata_deleter {
  void operator()(const rd_kafka_metadata_t* metadata) const {
    rd_kafka_metadata_destroy(metadata);
  }
};
struct mock_cluster_deleter {
  void operator()(rd_kafka_mock_cluster_t* cluster) const {
    rd_kafka_mock_cluster_destroy(cluster);
  }
};

using handle_ptr = std::unique_ptr<rd_kafka_t, handle_deleter>;
using unjoined_handle_ptr = std::unique_ptr<rd_kafka_t, unjoined_handle_deleter>;
using conf_ptr = std::unique_ptr<rd_kafka_conf_t, conf_deleter>;
using topic_ptr = std::unique_ptr<rd_kafka_topic_t, topic_deleter>;
using topic_partition_list_ptr =
    std::unique_ptr<rd_kafka_topic_partition_list_t, topic_partition_list_deleter>;
using message_ptr = std::unique_ptr<rd_kafka_message_t, message_deleter>;
using headers_ptr = std::unique_ptr<rd_kafka_headers_t, headers_deleter>;
using queue_ptr = std::unique_ptr<rd_kafka_queue_t, queue_deleter>;
using admin_options_ptr = std::unique_ptr<rd_kafka_AdminOptions_t, admin_options_deleter>;
using new_topic_ptr = std::unique_ptr<rd_kafka_NewTopic_t, new_topic_deleter>;
using new_partitions_ptr = std::unique_ptr<rd_kafka_NewPartitions_t, new_partitions_deleter>;
using event_ptr = std::unique_ptr<rd_kafka_event_t, event_deleter>;
using error_ptr = std::unique_ptr<rd_kafka_error_t, error_deleter>;
using metadata_ptr = std::unique_ptr<const rd_kafka_metadata_t, metadata_deleter>;
using mock_cluster_ptr = std::unique_ptr<rd_kafka_mock_cluster_t, mock_cluster_deleter>;

}  // namespace courier::kafka
