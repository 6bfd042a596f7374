#pragma once

#include "core/kafka/handles.hpp"

#include <map>
#include <string>

namespace courier::kafka {

// A librdkafka configuration with every property set; throws kafka_error naming the first
// property librdkafka rejects, with librdkafka's reason.
conf_ptr make_conf(const std::map<std::string, std::string>& properties);

}  // namespace courier::kafka
