#pragma once

#include <chrono>
#include <map>
#include <string>

namespace courier::redrive {

// The librdkafka properties of redrive's transactional producer. A record it writes is a DLQ
// record with courier's error and tier headers dropped and three short redrive headers added.
// Sized and compressed like courier's retry producer (rewrite_producer_properties,
// core/retry/rewrite_producer.hpp): it takes every record redrive's reader can be handed, and
// compresses it, so a record that came compressed and is larger than the topics' limit
// uncompressed goes back to its source, which took it compressed before.
// transaction.timeout.ms is twice `timeout` (--timeout, which bounds each commit): the broker
// aborts a transaction a killed run left open after that, not after librdkafka's 60 s.
std::map<std::string, std::string> redrive_producer_properties(std::chrono::milliseconds timeout);

}  // namespace courier::redrive
