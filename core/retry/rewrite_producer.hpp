#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace courier {

// librdkafka's default receive.message.max.bytes: the largest fetch response a consumer takes,
// and the most a batch it decompresses may grow to.
inline constexpr std::int64_t librdkafka_default_receive_message_max_bytes = 100'000'000;
// The largest message.max.bytes librdkafka accepts.
inline constexpr std::int64_t librdkafka_max_message_max_bytes = 1'000'000'000;
// What a producer that writes records back compresses them with unless told otherwise.
inline constexpr const char* rewrite_compression = "zstd";

// The largest record, with courier's headers on it, that a consumer whose
// receive.message.max.bytes is `receive_message_max_bytes` can hand over uncompressed:
// that limit plus courier_header_allowance(), at most librdkafka's largest message.max.bytes.
std::int64_t rewrite_message_max_bytes(std::int64_t receive_message_max_bytes);

// The properties of a producer that writes records a consumer took back to Kafka (courier's
// retry router: tier and DLQ records; redrive: DLQ records back to their source), from the
// properties it shares with that consumer (`properties`, which win where they set a key):
//  - message.max.bytes at least rewrite_message_max_bytes of the consumer's
//    receive.message.max.bytes (librdkafka's default when not set or not a whole number;
//    librdkafka names a bad value when the consumer is made);
//  - compression.type `rewrite_compression` unless compression.type or compression.codec is set.
// Why: librdkafka checks message.max.bytes against a record's size before it compresses it,
// the broker checks the topic's max.message.bytes against the compressed batch. A record that
// came compressed is within its topic's limit compressed and may be far larger uncompressed (a
// 3 MB JSON document in a 1 MB topic): a producer sized by the topic refuses it before sending
// anything, and its partition is held for good. Sized by what the consumer can take and
// compressed again, the record is written whenever it fits its destination compressed, which
// is what the broker checks; one that does not is refused by the broker and held (loud, the
// runbook's CourierDlqProduceFailing), never lost.
std::map<std::string, std::string> rewrite_producer_properties(
    std::map<std::string, std::string> properties);

}  // namespace courier
