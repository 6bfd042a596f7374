#pragma once

#include "core/kafka/handles.hpp"
#include "core/model/partition_id.hpp"

#include <string>
#include <vector>

namespace courier::kafka {

// "topic[partition]", for messages.
std::string describe(const rd_kafka_topic_partition_t& tp);

std::vector<partition_id> to_partition_ids(const rd_kafka_topic_partition_list_t* list);
topic_partition_list_ptr to_partition_list(const std::vector<partition_id>& ps);

// Throws one kafka_error listing every partition of `list` whose err is set, if any.
void throw_partition_errors(const rd_kafka_topic_partition_list_t* list, const std::string& what);

}  // namespace courier::kafka
