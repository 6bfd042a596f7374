#include "core/kafka/admin.hpp"

#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka/handles.hpp"

#include <array>
#include <memory>
#include <thread>

namespace courier::kafka {
namespace {

handle_ptr make_handle(rd_kafka_type_t type, const std::map<std::string, std::string>& props,
                       const std::string& purpose) {
  conf_ptr conf = make_conf(props);
  std::array<char, 512> reason{};
  handle_ptr rk{rd_kafka_new(type, conf.get(), reason.data(), reason.size())};
  if (!rk) {
    throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG, "creating a handle for " + purpose,
                      reason.data());
  }
  static_cast<void>(conf.release());  // rd_kafka_new took ownership
  return rk;
}

int to_timeout_ms(std::chrono::milliseconds timeout) { return static_cast<int>(timeout.count()); }

// Options of one admin request: request_timeout bounds the client's wait, operation_timeout
// the controller's (only CreateTopics and CreatePartitions take one; librdkafka refuses it for
// DescribeConfigs and AlterConfigs).
admin_options_ptr admin_options(rd_kafka_t* rk, rd_kafka_admin_op_t op,
                                std::chrono::milliseconds timeout, const std::string& what) {
  admin_options_ptr options{rd_kafka_AdminOptions_new(rk, op)};
  std::array<char, 512> reason{};
  rd_kafka_resp_err_t err = rd_kafka_AdminOptions_set_request_timeout(
      options.get(), to_timeout_ms(timeout), reason.data(), reason.size());
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "setting the " + what + " request timeout", reason.data());
  }
  if (op != RD_KAFKA_ADMIN_OP_CREATETOPICS && op != RD_KAFKA_ADMIN_OP_CREATEPARTITIONS) {
    return options;
  }
  err = rd_kafka_AdminOptions_set_operation_timeout(options.get(), to_timeout_ms(timeout),
                                                    reason.data(), reason.size());
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "setting the " + what + " operation timeout", reason.data());
  }
  return options;
}

// The result event of an admin request sent to `queue`; throws on a request-level error.
event_ptr admin_result(rd_kafka_queue_t* queue, std::chrono::milliseconds timeout,
                       const std::string& what) {
  // The result arrives after at most the request timeout; wait a little longer than that.
  event_ptr event{rd_kafka_queue_poll(queue, to_timeout_ms(timeout) + 1000)};
  if (!event) {
    throw kafka_error(RD_KAFKA_RESP_ERR__TIMED_OUT, "waiting for the " + what + " result");
  }
  const rd_kafka_resp_err_t err = rd_kafka_event_error(event.get());
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, what, rd_kafka_event_error_string(event.get()));
  }
  return event;
}

// Throws for the first topic whose result is an error other than `tolerated`.
void check_topic_results(const rd_kafka_topic_result_t** results, std::size_t count,
                         rd_kafka_resp_err_t tolerated, const std::string& doing) {
  for (std::size_t i = 0; i < count; ++i) {
    const rd_kafka_resp_err_t topic_err = rd_kafka_topic_result_error(results[i]);
    if (topic_err == RD_KAFKA_RESP_ERR_NO_ERROR || topic_err == tolerated) {
      continue;
    }
    const char* message = rd_kafka_topic_result_error_string(results[i]);
    throw kafka_error(topic_err, doing + " '" + rd_kafka_topic_result_name(results[i]) + "'",
                      message != nullptr ? message : rd_kafka_err2str(topic_err));
  }
}

// handles.hpp has no ConfigResource; only this file uses one.
struct config_resource_deleter {
  void operator()(rd_kafka_ConfigResource_t* resource) const {
    rd_kafka_ConfigResource_destroy(resource);
  }
};
using config_resource_ptr = std::unique_ptr<rd_kafka_ConfigResource_t, config_resource_deleter>;

config_resource_ptr topic_resource(const std::string& topic) {
  config_resource_ptr resource{rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str())};
  if (!resource) {
    throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG,
                      "describing the config resource of topic '" + topic + "'");
  }
  return resource;
}

// The one result resource of a Describe/AlterConfigs request about `topic`; throws when the
// broker answered with an error for it.
const rd_kafka_ConfigResource_t* the_topic_result(
    const rd_kafka_ConfigResource_t** resources,
    // Distinct by role: a count and a topic name of the request it answers.
    // NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
    std::size_t count, const std::string& topic, const std::string& doing) {
  for (std::size_t i = 0; i < count; ++i) {
    if (rd_kafka_ConfigResource_type(resources[i]) != RD_KAFKA_RESOURCE_TOPIC ||
        topic != rd_kafka_ConfigResource_name(resources[i])) {
      continue;
    }
    const rd_kafka_resp_err_t err = rd_kafka_ConfigResource_error(resources[i]);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      const char* message = rd_kafka_ConfigResource_error_string(resources[i]);
      throw kafka_error(err, doing,
                        message != nullptr && *message != '\0' ? message : rd_kafka_err2str(err));
    }
    return resources[i];
  }
  throw kafka_error(RD_KAFKA_RESP_ERR__FAIL, doing, "the broker's answer does not name the topic");
}

}  // namespace

void create_topics(const cluster& at, const std::vector<std::pair<std::string, int>>& topics,
                   std::chrono::milliseconds timeout) {
  std::vector<new_topic_spec> specs;
  specs.reserve(topics.size());
  for (const auto& [name, partitions] : topics) {
    specs.push_back(new_topic_spec{name, partitions, {}});
  }
  create_topics_with_config(at, specs, timeout);
}

void create_topics_with_config(const cluster& at, const std::vector<new_topic_spec>& topics,
                               std::chrono::milliseconds timeout) {
  if (topics.empty()) {
    return;
  }
  handle_ptr rk = make_handle(RD_KAFKA_PRODUCER, at.handle_properties(), "creating topics");
  std::vector<new_topic_ptr> owned;
  std::vector<rd_kafka_NewTopic_t*> new_topics;
  for (const auto& [name, partitions, config] : topics) {
    std::array<char, 512> reason{};
    new_topic_ptr topic{rd_kafka_NewTopic_new(name.c_str(), partitions,
                                              /*replication_factor=*/-1, reason.data(),
                                              reason.size())};
    if (!topic) {
      throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG, "describing new topic '" + name + "'",
                        reason.data());
    }
    for (const auto& [key, value] : config) {
      const rd_kafka_resp_err_t config_err =
          rd_kafka_NewTopic_set_config(topic.get(), key.c_str(), value.c_str());
      if (config_err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        throw kafka_error(config_err,
                          "setting " + key + "=" + value + " on new topic '" + name + "'");
      }
    }
    new_topics.push_back(topic.get());
    owned.push_back(std::move(topic));
  }

  const auto options =
      admin_options(rk.get(), RD_KAFKA_ADMIN_OP_CREATETOPICS, timeout, "CreateTopics");
  queue_ptr queue{rd_kafka_queue_new(rk.get())};
  rd_kafka_CreateTopics(rk.get(), new_topics.data(), new_topics.size(), options.get(), queue.get());
  const event_ptr event = admin_result(queue.get(), timeout, "creating topics");
  const rd_kafka_CreateTopics_result_t* result = rd_kafka_event_CreateTopics_result(event.get());
  if (result == nullptr) {
    throw kafka_error(RD_KAFKA_RESP_ERR__FAIL, "creating topics: unexpected event",
                      rd_kafka_event_name(event.get()));
  }
  std::size_t count = 0;
  const rd_kafka_topic_result_t** results = rd_kafka_CreateTopics_result_topics(result, &count);
  check_topic_results(results, count, RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS, "creating topic");
}

void create_partitions(const cluster& at, const std::string& topic, int total,
                       std::chrono::milliseconds timeout) {
  handle_ptr rk = make_handle(RD_KAFKA_PRODUCER, at.handle_properties(),
                              "adding partitions to '" + topic + "'");
  std::array<char, 512> reason{};
  new_partitions_ptr request{rd_kafka_NewPartitions_new(
      topic.c_str(), static_cast<std::size_t>(total), reason.data(), reason.size())};
  if (!request) {
    throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG,
                      "describing new partitions of '" + topic + "'", reason.data());
  }
  rd_kafka_NewPartitions_t* requests[] = {request.get()};
  const auto options =
      admin_options(rk.get(), RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, timeout, "CreatePartitions");
  queue_ptr queue{rd_kafka_queue_new(rk.get())};
  rd_kafka_CreatePartitions(rk.get(), requests, 1, options.get(), queue.get());
  const event_ptr event = admin_result(queue.get(), timeout, "adding partitions");
  const rd_kafka_CreatePartitions_result_t* result =
      rd_kafka_event_CreatePartitions_result(event.get());
  if (result == nullptr) {
    throw kafka_error(RD_KAFKA_RESP_ERR__FAIL, "adding partitions: unexpected event",
                      rd_kafka_event_name(event.get()));
  }
  std::size_t count = 0;
  const rd_kafka_topic_result_t** results = rd_kafka_CreatePartitions_result_topics(result, &count);
  check_topic_results(results, count, RD_KAFKA_RESP_ERR_NO_ERROR, "adding partitions to");
}

std::map<std::int32_t, offset_commit> committed_commits(const cluster& at, const std::string& group,
                                                        const std::string& topic, int partitions,
                                                        std::chrono::milliseconds timeout) {
  // A consumer handle that never subscribes: it only asks the group coordinator.
  handle_ptr rk = make_handle(RD_KAFKA_CONSUMER,
                              at.handle_properties({{"group.id", group},
                                                    {"enable.auto.commit", "false"},
                                                    {"enable.auto.offset.store", "false"}}),
                              "reading committed offsets of group '" + group + "'");
  topic_partition_list_ptr list{rd_kafka_topic_partition_list_new(partitions)};
  for (int p = 0; p < partitions; ++p) {
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p);
  }
  const rd_kafka_resp_err_t err = rd_kafka_committed(rk.get(), list.get(), to_timeout_ms(timeout));
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "reading committed offsets of group '" + group + "' for " + topic);
  }
  std::map<std::int32_t, offset_commit> result;
  for (int i = 0; i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = list->elems[i];
    if (tp.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      throw kafka_error(tp.err, "reading committed offset of group '" + group + "' for " + topic +
                                    "[" + std::to_string(tp.partition) + "]");
    }
    if (tp.offset >= 0) {
      std::string metadata;
      if (tp.metadata != nullptr) {
        metadata.assign(static_cast<const char*>(tp.metadata), tp.metadata_size);
      }
      result.emplace(tp.partition,
                     offset_commit{{topic, tp.partition}, tp.offset, std::move(metadata)});
    }
  }
  return result;
}

std::map<std::int32_t, std::int64_t> committed_offsets(const cluster& at, const std::string& group,
                                                       const std::string& topic, int partitions,
                                                       std::chrono::milliseconds timeout) {
  std::map<std::int32_t, std::int64_t> result;
  for (const auto& [partition, commit] : committed_commits(at, group, topic, partitions, timeout)) {
    result.emplace(partition, commit.offset);
  }
  return result;
}

int partition_count(const cluster& at, const std::string& topic,
                    std::chrono::milliseconds timeout) {
  // All topics, not just this one: a request naming the topic may auto-create it (the mock
  // cluster, and brokers that predate allow.auto.create.topics).
  handle_ptr rk =
      make_handle(RD_KAFKA_CONSUMER, at.handle_properties(), "reading metadata of '" + topic + "'");
  const rd_kafka_metadata_t* raw_metadata = nullptr;
  const rd_kafka_resp_err_t err =
      rd_kafka_metadata(rk.get(), /*all_topics=*/1,
                        /*only_rkt=*/nullptr, &raw_metadata, to_timeout_ms(timeout));
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "reading metadata of topic '" + topic + "'");
  }
  metadata_ptr metadata{raw_metadata};
  for (int i = 0; i < metadata->topic_cnt; ++i) {
    const rd_kafka_metadata_topic_t& t = metadata->topics[i];
    if (topic != t.topic) {
      continue;
    }
    if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR && t.partition_cnt == 0) {
      throw kafka_error(t.err, "reading metadata of topic '" + topic + "'");
    }
    return t.partition_cnt;
  }
  throw kafka_error(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
                    "reading metadata of topic '" + topic + "'", "the cluster has no such topic");
}

int visible_partitions(const cluster& at, const std::string& topic,
                       std::chrono::milliseconds timeout) {
  try {
    return partition_count(at, topic, timeout);
  } catch (const kafka_error& e) {
    if (e.code() == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
        e.code() == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
        e.code() == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE) {
      return 0;
    }
    throw;
  }
}

void wait_until_visible(const cluster& at, const std::string& topic, int partitions,
                        std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int seen = 0;
  while ((seen = visible_partitions(at, topic, timeout)) < partitions) {
    if (std::chrono::steady_clock::now() >= deadline) {
      throw kafka_error(RD_KAFKA_RESP_ERR__TIMED_OUT,
                        "waiting for topic '" + topic + "' to show " + std::to_string(partitions) +
                            " partitions in the metadata (it shows " + std::to_string(seen) + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
}

std::map<std::string, topic_config_entry> describe_topic_config_entries(
    const cluster& at, const std::string& topic, std::chrono::milliseconds timeout) {
  const std::string doing = "describing the config of topic '" + topic + "'";
  handle_ptr rk = make_handle(RD_KAFKA_PRODUCER, at.handle_properties(), doing);
  config_resource_ptr resource = topic_resource(topic);
  rd_kafka_ConfigResource_t* resources[] = {resource.get()};
  const auto options =
      admin_options(rk.get(), RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, timeout, "DescribeConfigs");
  queue_ptr queue{rd_kafka_queue_new(rk.get())};
  rd_kafka_DescribeConfigs(rk.get(), resources, 1, options.get(), queue.get());
  const event_ptr event = admin_result(queue.get(), timeout, doing);
  const rd_kafka_DescribeConfigs_result_t* result =
      rd_kafka_event_DescribeConfigs_result(event.get());
  if (result == nullptr) {
    throw kafka_error(RD_KAFKA_RESP_ERR__FAIL, doing + ": unexpected event",
                      rd_kafka_event_name(event.get()));
  }
  std::size_t count = 0;
  const rd_kafka_ConfigResource_t** results =
      rd_kafka_DescribeConfigs_result_resources(result, &count);
  const rd_kafka_ConfigResource_t* described = the_topic_result(results, count, topic, doing);

  std::size_t entry_count = 0;
  const rd_kafka_ConfigEntry_t** entries = rd_kafka_ConfigResource_configs(described, &entry_count);
  std::map<std::string, topic_config_entry> out;
  for (std::size_t i = 0; i < entry_count; ++i) {
    topic_config_entry entry;
    if (const char* value = rd_kafka_ConfigEntry_value(entries[i]); value != nullptr) {
      entry.value = value;
    }
    entry.is_override =
        rd_kafka_ConfigEntry_source(entries[i]) == RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG;
    entry.is_read_only = rd_kafka_ConfigEntry_is_read_only(entries[i]) == 1;
    out.emplace(rd_kafka_ConfigEntry_name(entries[i]), std::move(entry));
  }
  return out;
}

std::map<std::string, std::string> describe_topic_config(const cluster& at,
                                                         const std::string& topic,
                                                         std::chrono::milliseconds timeout) {
  std::map<std::string, std::string> out;
  for (auto& [name, entry] : describe_topic_config_entries(at, topic, timeout)) {
    if (entry.value) {
      out.emplace(name, std::move(*entry.value));
    }
  }
  return out;
}

std::map<std::string, std::string> topic_config_overrides(const cluster& at,
                                                          const std::string& topic,
                                                          std::chrono::milliseconds timeout) {
  std::map<std::string, std::string> out;
  for (auto& [name, entry] : describe_topic_config_entries(at, topic, timeout)) {
    if (entry.is_override && entry.value) {
      out.emplace(name, std::move(*entry.value));
    }
  }
  return out;
}

std::map<std::string, std::string> set_topic_config(const cluster& at, const std::string& topic,
                                                    const std::string& key,
                                                    const std::string& value,
                                                    std::chrono::milliseconds timeout) {
  const std::string doing = "setting " + key + "=" + value + " on topic '" + topic + "'";
  // AlterConfigs resets every override it is not sent: send them all.
  std::map<std::string, topic_config_entry> current;
  try {
    current = describe_topic_config_entries(at, topic, timeout);
  } catch (const kafka_error& e) {
    throw kafka_error(e.code(), doing, e.what());
  }
  std::map<std::string, std::string> kept;
  for (auto& [name, entry] : current) {
    if (!entry.is_override || name == key) {
      continue;
    }
    if (!entry.value) {
      throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG, doing,
                        "its override " + name +
                            " is sensitive (the broker hides its value), so AlterConfigs "
                            "would drop it");
    }
    kept.emplace(name, std::move(*entry.value));
  }

  handle_ptr rk = make_handle(RD_KAFKA_PRODUCER, at.handle_properties(), doing);
  config_resource_ptr resource = topic_resource(topic);
  const auto set = [&](const std::string& name, const std::string& v) {
    const rd_kafka_resp_err_t err =
        rd_kafka_ConfigResource_set_config(resource.get(), name.c_str(), v.c_str());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      throw kafka_error(err, doing + " (with its override " + name + "=" + v + ")");
    }
  };
  for (const auto& [name, v] : kept) {
    set(name, v);
  }
  set(key, value);
  rd_kafka_ConfigResource_t* resources[] = {resource.get()};
  const auto options =
      admin_options(rk.get(), RD_KAFKA_ADMIN_OP_ALTERCONFIGS, timeout, "AlterConfigs");
  queue_ptr queue{rd_kafka_queue_new(rk.get())};
  rd_kafka_AlterConfigs(rk.get(), resources, 1, options.get(), queue.get());
  const event_ptr event = admin_result(queue.get(), timeout, doing);
  const rd_kafka_AlterConfigs_result_t* result = rd_kafka_event_AlterConfigs_result(event.get());
  if (result == nullptr) {
    throw kafka_error(RD_KAFKA_RESP_ERR__FAIL, doing + ": unexpected event",
                      rd_kafka_event_name(event.get()));
  }
  std::size_t count = 0;
  const rd_kafka_ConfigResource_t** results =
      rd_kafka_AlterConfigs_result_resources(result, &count);
  the_topic_result(results, count, topic, doing);
  return kept;
}

}  // namespace courier::kafka
