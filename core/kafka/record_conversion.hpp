#pragma once

#include "core/kafka/handles.hpp"
#include "core/model/record.hpp"

namespace courier::kafka {

// All headers of a consumed message, in order; a header without a value becomes "".
header_list to_header_list(const rd_kafka_message_t& msg);

// A consumed message (err == 0) as courier carries it.
record to_record(const rd_kafka_message_t& msg);

// Headers for a message to produce; nullptr when there are none.
headers_ptr to_kafka_headers(const header_list& headers);

}  // namespace courier::kafka
