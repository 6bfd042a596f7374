// libFuzzer target: arbitrary header sets as the headers of a record read from a retry tier or
// the DLQ (a redriven, edited record, or any producer's), through the retry/DLQ header codec of
// core/retry. Built with -fsanitize=fuzzer,address,undefined when COURIER_FUZZ is ON (clang);
// otherwise replay_main.cpp runs the corpus through it as an ordinary test.
//
// The input is one header a line, "name:value" (split at the first ':'); a line that starts
// with a tab continues the previous value after a '\n' (a trace has several lines).
//
// Checked, beyond no crash and no UB: read_retry_state returns values in their bounds or throws
// header_error, and what it read encodes and reads back the same; retry_headers never throws,
// and what it writes, the next hop reads back without error (attempts added up, the tier and
// due it set, the idempotency key it sent), its own values capped and UTF-8; merged_trace is
// stable when nothing new is added.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/idempotency_key.hpp"
#include "core/model/record.hpp"
#include "core/retry/error_trace.hpp"
#include "core/retry/header_value.hpp"
#include "core/retry/retry_headers.hpp"
#include "core/retry/retry_tiers.hpp"

namespace {

using namespace courier;

// Ends the run as a crash (the input is kept) naming the property that broke.
void check(bool holds, const char* property) {
  if (!holds) {
    std::fprintf(stderr, "property broken: %s\n", property);
    std::abort();
  }
}

header_list parse_input(std::string_view text) {
  header_list headers;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (!line.empty() && line.front() == '\t' && !headers.empty()) {
      headers.back().second += '\n';
      headers.back().second.append(line.substr(1));
      continue;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      headers.emplace_back(std::string{line}, std::string{});
    } else {
      headers.emplace_back(std::string{line.substr(0, colon)}, std::string{line.substr(colon + 1)});
    }
  }
  return headers;
}

bool same(const retry_state& a, const retry_state& b) {
  const bool same_origin =
      a.from.has_value() == b.from.has_value() &&
      (!a.from ||
       (a.from->topic == b.from->topic && a.from->partition == b.from->partition &&
        a.from->offset == b.from->offset && a.from->timestamp_ms == b.from->timestamp_ms));
  return same_origin && a.idempotency_key == b.idempotency_key &&
         a.total_attempts == b.total_attempts && a.tier == b.tier && a.due_ms == b.due_ms &&
         a.first_failure_ms == b.first_failure_ms && a.correlation_id == b.correlation_id;
}

// The headers that say `s`, the way retry_headers writes each value.
header_list encode(const retry_state& s) {
  header_list h;
  if (s.idempotency_key) {
    h.emplace_back(idempotency_key_header, *s.idempotency_key);
  }
  if (s.from) {
    h.emplace_back(origin_topic_header, s.from->topic);
    h.emplace_back(origin_partition_header, std::to_string(s.from->partition));
    h.emplace_back(origin_offset_header, std::to_string(s.from->offset));
    h.emplace_back(origin_timestamp_header, std::to_string(s.from->timestamp_ms));
  }
  h.emplace_back(attempts_header, std::to_string(s.total_attempts));
  h.emplace_back(retry_tier_header,
                 s.tier >= 0 ? std::to_string(s.tier) : std::string{no_retry_tier});
  if (s.due_ms) {
    h.emplace_back(retry_due_header, std::to_string(*s.due_ms));
  }
  if (s.first_failure_ms) {
    h.emplace_back(first_failure_header, std::to_string(*s.first_failure_ms));
  }
  if (s.correlation_id) {
    h.emplace_back(correlation_id_header, *s.correlation_id);
  }
  return h;
}

bool is_utf8_within(std::string_view value, std::size_t max_bytes) {
  return value.size() <= max_bytes && cap_header_value(value, value.size() + 8) == value;
}

void check_read(const header_list& headers) {
  retry_state s;
  try {
    s = read_retry_state(headers);
  } catch (const header_error& e) {
    check(find_header(headers, e.header()).has_value(), "header_error names a header it read");
    return;
  }
  check(s.total_attempts >= 0, "attempts are not negative");
  check(s.tier >= -1, "a tier is an index or none");
  check(!s.from || (s.from->partition >= 0 && s.from->offset >= 0),
        "origin partition and offset are not negative");
  check(same(read_retry_state(encode(s)), s), "what was read encodes and reads back the same");
}

void check_write(const record& r, const destination& dest, std::int64_t now_ms) {
  failure_info f;
  f.error_class = "http_503";
  f.error_message = "service unavailable";
  f.status = 503;
  f.response_excerpt = "try later";
  f.attempts = 4;
  f.failed_at_ms = now_ms;
  f.trace = {format_trace_entry(now_ms, "http_503")};

  const header_list out = retry_headers(r, "route", dest, f, now_ms);
  const retry_state next = read_retry_state(out);  // header_error here is a crash: a bug
  check(next.total_attempts >= f.attempts, "attempts add up");
  check(next.idempotency_key == idempotency_key_for(r), "the key sent is the key carried on");
  record onward = r;
  onward.headers = out;
  check(idempotency_key_for(onward) == idempotency_key_for(r), "the key is stable over hops");
  switch (dest.what) {
    case destination::kind::tier:
      check(next.tier == dest.tier_index, "the tier it set");
      check(next.due_ms == now_ms + dest.delay.count(), "the due it set");
      break;
    case destination::kind::dlq:
    case destination::kind::receipt:
      check(!next.due_ms.has_value(), "a DLQ record has no due");
      break;
  }
  for (const auto name : {route_header, error_class_header, error_message_header,
                          error_response_header, error_trace_header}) {
    const auto value = find_header(out, name);
    check(value && is_utf8_within(*value, max_header_value), "courier's values capped, UTF-8");
  }
  const auto trace = find_header(out, error_trace_header);
  check(merged_trace(*trace, {}) == *trace, "a merged trace merges to itself");
}

}  // namespace

#ifdef COURIER_FUZZER
// ASan's quarantine of freed memory counts toward -rss_limit_mb; a small one keeps the limit
// about the codec's memory.
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=16"; }
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const header_list headers =
      parse_input(std::string_view{reinterpret_cast<const char*>(data), size});
  check_read(headers);

  record r;
  r.topic = "brew.shipments.v1-retry-5s";
  r.partition = 2;
  r.offset = 17;
  r.timestamp_ms = 1'800'000'000'000;
  r.headers = headers;
  static const route_topics topics =
      route_topics_named("brew.shipments.v1", {std::chrono::seconds(5), std::chrono::seconds(30)},
                         "brew.shipments.dlq");
  constexpr std::int64_t now_ms = 1'800'000'100'000;
  check_write(r, next_destination(0, false, topics), now_ms);
  check_write(r, next_destination(1, false, topics), now_ms);
  return 0;
}
