#pragma once

// A mock cluster with an origin topic, its DLQ and the DLQ's ledger, DLQ records parked the
// way courier's retry router writes them, and helpers that run redrive and read topics.

#include "core/kafka_mock/mock_cluster.hpp"
#include "core/kafka/producer.hpp"
#include "core/retry/retry_headers.hpp"
#include "tests/support/parked_record.hpp"
#include "tests/support/redrive_config.hpp"
#include "tools/redrive/cli.hpp"
#include "core/kafka/range_reader.hpp"
#include "tools/redrive/redrive.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace courier::redrive::test {

using namespace std::chrono_literals;

inline std::int64_t wall_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One record to park: it first appeared at origin:partition:offset.
struct parked_spec {
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  std::string key;
  std::string error_class = "http_503";
  std::int64_t failed_at_ms = 0;  // 0: now
  header_list extra_headers;      // on the original record (carried into the DLQ)
};

// n records, alternating partitions; record i has key "key-i" and sits at DLQ and origin
// coordinates (i % 2, i / 2).
inline std::vector<parked_spec> parked_specs(int n, const std::string& error_class = "http_503") {
  std::vector<parked_spec> out;
  for (int i = 0; i < n; ++i) {
    parked_spec s;
    s.partition = i % 2;
    s.offset = i / 2;
    s.key = "key-" + std::to_string(i);
    s.error_class = error_class;
    out.push_back(s);
  }
  return out;
}

// Every committed record of `topic`, read to its high watermark (read_committed); returns at
// once.
inline std::vector<record> read_all(const std::string& bootstrap, const std::string& topic) {
  kafka::range_reader reader{bootstrap, 10s};
  std::vector<record> records;
  reader.read(topic, reader.ranges(topic, reader.partition_count(topic)), [&](record&& r) {
    records.push_back(std::move(r));
    return true;
  });
  return records;
}

struct run_result {
  int code = -1;
  std::string out;
  std::string err;
};

// `redrive` in process with these arguments (argv[0] included), as main() would run it;
// `stop_requested` stands in for SIGINT/SIGTERM.
inline run_result run_redrive_in_process(const std::vector<std::string>& args,
                                         std::function<bool()> stop_requested = {}) {
  std::vector<const char*> argv;
  for (const auto& a : args) {
    argv.push_back(a.c_str());
  }
  const cli_result parsed = parse_cli(
      static_cast<int>(argv.size()), argv.data(),
      [](const char* name) -> const char* {
        // courier's config names brew.shipments.v1 the source of brew.shipments.dlq's route.
        return std::string_view{name} == "COURIER_CONFIG"
                   ? courier::testing::stand_redrive_config().c_str()
                   : nullptr;
      },
      wall_now_ms());
  run_result result;
  if (!parsed.opts) {
    result.code = parsed.exit_code;
    result.err = parsed.message;
    return result;
  }
  std::ostringstream out;
  std::ostringstream err;
  options o = *parsed.opts;
  o.run.stop_requested = std::move(stop_requested);
  result.code = redrive::run(o, out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

// `redrive` in process against `bootstrap` (a 5 s timeout), from `dlq` unless `args` name
// another --from.
inline run_result run_redrive(const std::string& bootstrap, const std::string& dlq,
                              const std::vector<std::string>& args,
                              std::function<bool()> stop_requested = {}) {
  std::vector<std::string> all{"redrive", "--bootstrap", bootstrap, "--timeout", "5s"};
  if (std::find(args.begin(), args.end(), "--from") == args.end()) {
    all.insert(all.end(), {"--from", dlq});
  }
  all.insert(all.end(), args.begin(), args.end());
  return run_redrive_in_process(all, std::move(stop_requested));
}

class dlq_stand {
 public:
  static constexpr const char* origin = "brew.shipments.v1";
  static constexpr const char* dlq = "brew.shipments.dlq";
  static constexpr const char* ledger_topic = "brew.shipments.dlq.redriven";
  static constexpr int partitions = 2;

  dlq_stand() {
    cluster_.create_topic(origin, partitions);
    cluster_.create_topic(dlq, partitions);
    cluster_.create_topic(ledger_topic, 1);
  }

  std::string bootstrap() const { return cluster_.bootstrap_servers(); }
  kafka::mock_cluster& cluster() { return cluster_; }

  // Produces the DLQ record courier's retry router would write for `s`, to the DLQ partition
  // of the same number. Returns its DLQ coordinates in produce order.
  void park(const std::vector<parked_spec>& specs) {
    kafka::producer prod{bootstrap()};
    for (const auto& s : specs) {
      record r;
      r.topic = origin;
      r.partition = s.partition;
      r.offset = s.offset;
      r.key = s.key;
      r.value = "value-of-" + s.key;
      r.headers = {{"content-type", "application/json"}};
      r.headers.insert(r.headers.end(), s.extra_headers.begin(), s.extra_headers.end());
      r.timestamp_ms = wall_now_ms();
      const std::int64_t at = s.failed_at_ms != 0 ? s.failed_at_ms : wall_now_ms();
      failure_info f;
      f.error_class = s.error_class;
      f.error_message = "the receiver said no";
      f.status = 503;
      f.response_excerpt = "busy";
      f.trace = {format_trace_entry(at, s.error_class)};
      f.attempts = 4;
      f.failed_at_ms = at;
      prod.produce(dlq, s.partition, r.key, r.value,
                   courier::testing::dlq_copy(r, "shipments", dlq, f, at), 0);
    }
    prod.flush(10s);
  }

  // A DLQ record with exactly these headers (for malformed ones).
  void park_raw(std::int32_t partition, const std::string& key, const header_list& headers) {
    kafka::producer prod{bootstrap()};
    prod.produce(dlq, partition, key, "raw-" + key, headers, 0);
    prod.flush(10s);
  }

  // Every committed record of `topic`, read to its high watermark (read_committed).
  std::vector<record> read_all(const std::string& topic) const {
    return test::read_all(bootstrap(), topic);
  }

  // Runs redrive in process against this cluster.
  run_result run(const std::vector<std::string>& args,
                 std::function<bool()> stop_requested = {}) const {
    return run_redrive(bootstrap(), dlq, args, std::move(stop_requested));
  }

 private:
  kafka::mock_cluster cluster_;
};

// courier.redrive.from of every record, counted.
inline std::map<std::string, int> count_by_source(const std::vector<record>& records) {
  std::map<std::string, int> counts;
  for (const auto& r : records) {
    const auto from = find_header(r.headers, "courier.redrive.from");
    ++counts[from ? std::string{*from} : std::string{"(missing)"}];
  }
  return counts;
}

}  // namespace courier::redrive::test
