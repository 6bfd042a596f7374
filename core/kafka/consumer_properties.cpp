#include "core/kafka/consumer_properties.hpp"

#include "core/kafka/conf.hpp"
#include "core/model/decimal.hpp"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <cstdint>

namespace courier::kafka {
namespace {

// The largest fetch response courier asks for unless `extra` sets fetch.max.bytes (the reason is
// at its default in consumer_properties); never below `extra`'s message.max.bytes, which
// librdkafka requires.
std::string fetch_max_bytes(const std::map<std::string, std::string>& extra) {
  constexpr std::int64_t default_bytes = std::int64_t{8} << 20;
  std::int64_t bytes = default_bytes;
  if (const auto it = extra.find("message.max.bytes"); it != extra.end()) {
    // Not a number: librdkafka names the setting when the consumer is created.
    bytes = std::max(bytes, parse_decimal<std::int64_t>(it->second).value_or(0));
  }
  return std::to_string(bytes);
}

}  // namespace

std::map<std::string, std::string> consumer_properties(const consumer_settings& s) {
  auto properties = with_overrides(
      {
          {"bootstrap.servers", s.bootstrap},
          {"group.id", s.group_id},
          // The owner commits (consumer::commit), with the offsets done above the commit point in
          // the commit's metadata: librdkafka's automatic commit cannot carry metadata.
          {"enable.auto.commit", "false"},
          {"enable.auto.offset.store", "false"},
          {"auto.offset.reset", "earliest"},
          // Cooperative (KIP-429): a join or a leave revokes only the partitions that move, and
          // the others keep delivering through it. librdkafka 2.0.2's sticky assignor balances the
          // partitions a member holds over all the topics it subscribes to, so a route's source
          // and its tiers are two members (split_consumer); "range,roundrobin" (eager) works too.
          {"partition.assignment.strategy", "cooperative-sticky"},
          // A restarted instance is served once the dead one's session expired: 6 s (the broker's
          // default group.min.session.timeout.ms) instead of librdkafka's 45 s, so a restart
          // delivers again within 10 s. Heartbeats come from librdkafka's own thread: a busy
          // application thread does not miss them.
          {"session.timeout.ms", "6000"},
          {"heartbeat.interval.ms", "2000"},
          // Partitions added to a source topic are consumed within seconds, not 5 minutes.
          {"topic.metadata.refresh.interval.ms", "10000"},
          // Lag, commit points and high watermarks for /metrics and /state (on_positions).
          {"statistics.interval.ms", "5000"},
          // The prefetch is courier's largest memory: with librdkafka's 64 MiB, 1,024 records in
          // flight of 1 KiB peaked at 116-133 MiB RSS; with 32 MiB at 68-84 MiB and delivered no
          // slower (16 MiB was slower). Its price: librdkafka 2.0.2 stops fetching for up to a
          // second once the queue holds this much, so records of a few KiB need more (about a
          // second of deliveries; kafka.properties overrides it). docs/performance.md has both.
          {"queued.max.messages.kbytes", consumer_settings::default_queued_max_messages_kbytes},
          // One fetch response is allocated whole before it joins that queue, up to
          // max.partition.fetch.bytes (1 MiB) for every partition fetched, within fetch.max.bytes
          // (librdkafka's 50 MiB): peak memory grew with the partitions (1 KiB records, 1,024 in
          // flight, a deep backlog: 94 MiB RSS on 8 partitions, 114-124 on 64, 129 on 128). 8 MiB
          // bounds it (85-87 MiB on 128) at the same rate; docs/performance.md.
          {"fetch.max.bytes", fetch_max_bytes(s.extra)},
      },
      for_client(RD_KAFKA_CONSUMER, s.extra));
  // The group's join state, read from its debug lines (commit_hold.hpp); the lines themselves are
  // dropped unless `debug` was asked for (consumer::on_client_log).
  auto& debug = properties["debug"];
  if (debug.empty()) {
    debug = "cgrp";
  } else if (debug.find("cgrp") == std::string::npos && debug.find("all") == std::string::npos) {
    debug += ",cgrp";
  }
  return properties;
}

}  // namespace courier::kafka
