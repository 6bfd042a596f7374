#include "core/redrive/parked_record.hpp"

#include "core/retry/retry_headers.hpp"
#include "core/redrive/ledger.hpp"
#include "core/redrive/redrive_headers.hpp"

#include <charconv>
#include <utility>

namespace courier::redrive {
namespace {

template <typename T>
std::optional<T> parse_non_negative(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end || value < 0) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

parked_record read_parked_record(record r) {
  parked_record p;
  p.coordinates = ledger_key(r.position());
  p.failed_at_ms = r.timestamp_ms;
  const auto note = [&p](const std::string& what) {
    if (!p.problem) {
      p.problem = p.coordinates + ": " + what;
    }
  };
  if (const auto cls = find_header(r.headers, error_class_header)) {
    p.error_class = std::string{*cls};
  }
  if (const auto topic = find_header(r.headers, origin_topic_header)) {
    if (topic->empty()) {
      note("header " + std::string{origin_topic_header} + " is empty");
    } else {
      p.origin_topic = std::string{*topic};
    }
  }
  if (const auto partition = find_header(r.headers, origin_partition_header)) {
    p.origin_partition = parse_non_negative<std::int32_t>(*partition);
  }
  try {
    static_cast<void>(read_retry_state(r.headers));
  } catch (const header_error& e) {
    note(e.what());
  }
  if (const auto last = find_header(r.headers, last_failure_header)) {
    if (const auto ms = parse_non_negative<std::int64_t>(*last)) {
      p.failed_at_ms = *ms;
    } else {
      note(header_error{last_failure_header, *last}.what());
    }
  }
  if (const auto count = find_header(r.headers, redrive_count_header)) {
    if (const auto n = parse_redrive_count(*count)) {
      p.redrive_count = *n;
    } else {
      note(header_error{redrive_count_header, *count}.what());
    }
  }
  p.raw = std::move(r);
  return p;
}

std::string origin_of(const parked_record& r) {
  if (!r.origin_topic) {
    return "(none)";
  }
  return *r.origin_topic + ":" +
         (r.origin_partition ? std::to_string(*r.origin_partition) : std::string{"?"});
}

}  // namespace courier::redrive
