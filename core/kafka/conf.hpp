#pragma once

#include "core/kafka/handles.hpp"

#include <map>
#include <string>

namespace courier::kafka {

// A librdkafka configuration with every property set; throws kafka_error naming the first
// property librdkafka rejects, with librdkafka's reason.
conf_ptr make_conf(const std::map<std::string, std::string>& properties);

// `defaults` with every property of `extra` set over it (`extra` wins where both have one).
std::map<std::string, std::string> with_overrides(std::map<std::string, std::string> defaults,
                                                  const std::map<std::string, std::string>& extra);

}  // namespace courier::kafka
