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

// The properties of `properties` that a client of `type` reads. librdkafka marks each of its
// properties as the consumer's (C), the producer's (P) or both (*) (rd_kafka_conf_properties_show);
// a client given the other role's property ignores it and warns (CONFWARN) every time it starts.
// courier gives kafka.properties to its consumers and to its producer alike, so each takes its
// own. A name librdkafka does not list is kept (make_conf names it).
std::map<std::string, std::string> for_client(rd_kafka_type_t type,
                                              const std::map<std::string, std::string>& properties);

// `defaults` with every property of `extra` set over it (`extra` wins where both have one).
std::map<std::string, std::string> with_overrides(std::map<std::string, std::string> defaults,
                                                  const std::map<std::string, std::string>& extra);

}  // namespace courier::kafka
