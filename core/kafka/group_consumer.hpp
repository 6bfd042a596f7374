#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/model/partition_id.hpp"
#include "core/model/record.hpp"

namespace courier::kafka {

// A member of a consumer group as the consumer actor drives it: poll, store offsets, commit,
// pause and resume fetching, leave. kafka::consumer (librdkafka) is the real one, and its
// comments say what each call promises; an actor test passes a fake that plays the group.
// The rebalance and error callbacks come with the member when it is made
// (kafka::consumer::callbacks) and run inside poll() and close().
class group_consumer {
 public:
  virtual ~group_consumer() = default;

  virtual std::vector<record> poll(std::chrono::milliseconds timeout, std::size_t max_records) = 0;
  virtual bool store_offset(const partition_id& p, std::int64_t next_offset) = 0;
  virtual std::size_t store_offsets(
      const std::vector<std::pair<partition_id, std::int64_t>>& offsets) = 0;
  virtual void commit_sync() = 0;
  virtual void pause(const std::vector<partition_id>& ps) = 0;
  virtual void resume(const std::vector<partition_id>& ps) = 0;
  [[nodiscard]] virtual std::vector<partition_id> assignment() const = 0;
  virtual void close() = 0;
};

}  // namespace courier::kafka
