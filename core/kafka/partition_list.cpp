#include "core/kafka/partition_list.hpp"

#include "core/kafka/error.hpp"

namespace courier::kafka {

std::string describe(const rd_kafka_topic_partition_t& tp) {
  return std::string(tp.topic) + "[" + std::to_string(tp.partition) + "]";
}

std::vector<partition_id> to_partition_ids(const rd_kafka_topic_partition_list_t* list) {
  std::vector<partition_id> ids;
  if (list == nullptr) {
    return ids;
  }
  ids.reserve(static_cast<std::size_t>(list->cnt));
  for (int i = 0; i < list->cnt; ++i) {
    ids.push_back(partition_id{list->elems[i].topic, list->elems[i].partition});
  }
  return ids;
}

topic_partition_list_ptr to_partition_list(const std::vector<partition_id>& ps) {
  topic_partition_list_ptr list{rd_kafka_topic_partition_list_new(static_cast<int>(ps.size()))};
  for (const partition_id& p : ps) {
    rd_kafka_topic_partition_list_add(list.get(), p.topic.c_str(), p.partition);
  }
  return list;
}

// Throws one kafka_error listing every partition of `list` that failed `what`.
void throw_partition_errors(const rd_kafka_topic_partition_list_t* list, const std::string& what) {
  std::string failures;
  rd_kafka_resp_err_t first = RD_KAFKA_RESP_ERR_NO_ERROR;
  for (int i = 0; i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = list->elems[i];
    if (tp.err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      continue;
    }
    if (first == RD_KAFKA_RESP_ERR_NO_ERROR) {
      first = tp.err;
    }
    failures += (failures.empty() ? "" : ", ") + describe(tp) + ": " + rd_kafka_err2str(tp.err);
  }
  if (first != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(first, what + " failed for some partitions", failures);
  }
}

}  // namespace courier::kafka
