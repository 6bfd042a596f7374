#include "core/log/partition_list.hpp"

#include <algorithm>
#include <cstddef>

namespace courier::log {
namespace {

std::string run_of(std::int32_t first, std::int32_t last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

}  // namespace

std::vector<std::string> compact_partition_list(std::vector<partition_id> partitions) {
  std::sort(partitions.begin(), partitions.end());
  partitions.erase(std::unique(partitions.begin(), partitions.end()), partitions.end());
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < partitions.size()) {
    const auto& topic = partitions[i].topic;
    std::string entry = topic + "[";
    bool first_run = true;
    while (i < partitions.size() && partitions[i].topic == topic) {
      const auto first = partitions[i].partition;
      auto last = first;
      ++i;
      while (i < partitions.size() && partitions[i].topic == topic &&
             partitions[i].partition == last + 1) {
        last = partitions[i].partition;
        ++i;
      }
      entry += first_run ? "" : ",";
      entry += run_of(first, last);
      first_run = false;
    }
    entry += "]";
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace courier::log
