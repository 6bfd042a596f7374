#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/model/record_position.hpp"

namespace courier::redrive {

// "<dlq-topic>:<partition>:<offset>": a DLQ record's position, the ledger key and the value
// of courier.redrive.from.
std::string ledger_key(const record_position& at);

// Reads "topic:partition:offset" (a topic name has no ':'); nothing when malformed.
std::optional<record_position> parse_coordinates(std::string_view text);

// "<dlq>.redriven": the compacted topic that records what was redriven.
std::string default_ledger_topic(std::string_view dlq_topic);

// Stable per DLQ topic, so a new run fences a zombie run on the same DLQ.
std::string transactional_id_for(std::string_view dlq_topic);

// The ledger value: {"target": ..., "partition": ..., "at": ...}. The target offset is not
// known inside the transaction that writes the entry; the run report prints it.
std::string ledger_value(std::string_view target_topic, std::int32_t target_partition,
                         std::int64_t at_ms);

// What the ledger holds: the keys of redriven DLQ records. A tombstone (empty value) forgets
// a key, so an operator can deliberately allow one record to be redriven again.
class ledger {
 public:
  void apply(const std::string& key, bool tombstone);
  bool contains(const std::string& key) const { return keys_.count(key) != 0; }
  std::size_t size() const { return keys_.size(); }

 private:
  std::set<std::string> keys_;
};

}  // namespace courier::redrive
