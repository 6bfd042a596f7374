#pragma once

#include "core/kafka/handles.hpp"

#include <librdkafka/rdkafka.h>

#include <map>
#include <string>

namespace courier::kafka {

// A librdkafka configuration with every property set; throws kafka_error naming the first
// property librdkafka rejects, with librdkafka's reason.
conf_ptr make_conf(const std::map<std::string, std::string>& properties);

// Creates a client of `type` with these properties and destroys it at once: librdkafka checks
// some properties only together, when a client is created (fetch.max.bytes >= message.max.bytes,
// acks=all with enable.idempotence, ...). Throws kafka_error with librdkafka's reason.
void check_client_conf(rd_kafka_type_t type, const std::map<std::string, std::string>& properties);

// `defaults` with every property of `extra` set over it (`extra` wins where both have one).
std::map<std::string, std::string> with_overrides(std::map<std::string, std::string> defaults,
                                                  const std::map<std::string, std::string>& extra);

}  // namespace courier::kafka
