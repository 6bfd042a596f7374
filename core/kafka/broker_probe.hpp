#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace courier::kafka {

// Whether any of the bootstrap servers (`host:port,host:port`, `[v6]:port`) accepts a TCP
// connection within `timeout` each: none when one does, else what went wrong with each, one line
// (`127.0.0.1:9092: Connection refused`). A start-up check that says in a second what
// librdkafka would say after its timeouts and many log lines; it does not speak Kafka (a broker
// behind TLS or SASL answers it the same).
std::optional<std::string> unreachable_brokers(std::string_view bootstrap,
                                               std::chrono::milliseconds timeout);

// The line to print for it: the addresses, what went wrong, and what to do.
std::string unreachable_brokers_hint(std::string_view bootstrap, const std::string& problem);

}  // namespace courier::kafka
