#include "core/retry/retry_headers.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <utility>

#include "core/model/decimal.hpp"

namespace courier {
namespace {

bool is_rewritten_on_every_hop(std::string_view name) {
  return name.substr(0, error_header_prefix.size()) == error_header_prefix ||
         name == retry_tier_header || name == retry_due_header || name == attempts_header ||
         name == last_failure_header || name == followers_header;
}

// Keeps the first `name` as it is and drops its duplicates.
void keep_first(header_list& headers, std::string_view name) {
  bool seen = false;
  for (auto it = headers.begin(); it != headers.end();) {
    if (it->first == name && seen) {
      it = headers.erase(it);
    } else {
      seen = seen || it->first == name;
      ++it;
    }
  }
}

// Sets `name` to `value`: the first occurrence in place, later duplicates dropped; appended
// when absent.
void set_header(header_list& headers, std::string_view name, std::string value) {
  const auto first = std::find_if(headers.begin(), headers.end(),
                                  [name](const auto& h) { return h.first == name; });
  if (first == headers.end()) {
    headers.emplace_back(std::string{name}, std::move(value));
    return;
  }
  first->second = std::move(value);
  keep_first(headers, name);
}

template <typename T>
std::optional<T> parse_non_negative(std::string_view text) {
  auto value = parse_decimal<T>(text);
  if (value && *value < 0) {
    return std::nullopt;
  }
  return value;
}

// The tier index in `courier.retry.tier`: -1 for "none", nothing when malformed.
std::optional<int> parse_tier(std::string_view text) {
  if (text == no_retry_tier) {
    return -1;
  }
  return parse_non_negative<int>(text);
}

// Nothing when the header is absent; header_error when it is there but malformed.
template <typename T>
std::optional<T> optional_number(const header_list& headers, std::string_view name,
                                 std::optional<T> (*parse)(std::string_view)) {
  const auto text = find_header(headers, name);
  if (!text) {
    return std::nullopt;
  }
  auto value = parse(*text);
  if (!value) {
    throw header_error{name, *text};
  }
  return value;
}

// Keeps the first `name` if it parses, and drops it (as if absent) if not: a carried value
// courier writes on must read back on the next hop.
template <typename T>
void keep_first_if_well_formed(header_list& headers, std::string_view name,
                               std::optional<T> (*parse)(std::string_view)) {
  keep_first(headers, name);
  headers.erase(
      std::remove_if(headers.begin(), headers.end(),
                     [&](const header& h) { return h.first == name && !parse(h.second); }),
      headers.end());
}

// The attempts so far plus this sequence's, saturated at what courier.attempts reads back as.
std::int64_t attempts_after(std::int64_t previous, int latest) {
  constexpr std::int64_t most = std::numeric_limits<int>::max();
  return std::min(std::min(previous, most) + std::max(latest, 0), most);
}

}  // namespace

header_error::header_error(std::string_view header, std::string_view value)
    : std::runtime_error{"header " + std::string{header} + " has a malformed value \"" +
                         cap_header_value(value, 64) + "\""},
      header_{header},
      value_{value} {}

retry_state read_retry_state(const header_list& headers) {
  retry_state state;
  if (const auto key = find_header(headers, idempotency_key_header)) {
    state.idempotency_key = std::string{*key};
  }
  if (const auto topic = find_header(headers, origin_topic_header)) {
    origin from;
    from.topic = std::string{*topic};
    from.partition = optional_number<std::int32_t>(headers, origin_partition_header,
                                                   parse_non_negative<std::int32_t>)
                         .value_or(0);
    from.offset = optional_number<std::int64_t>(headers, origin_offset_header,
                                                parse_non_negative<std::int64_t>)
                      .value_or(0);
    from.timestamp_ms =
        optional_number<std::int64_t>(headers, origin_timestamp_header, parse_decimal<std::int64_t>)
            .value_or(0);
    state.from = std::move(from);
  }
  state.total_attempts =
      optional_number<int>(headers, attempts_header, parse_non_negative<int>).value_or(0);
  state.tier = optional_number<int>(headers, retry_tier_header, parse_tier).value_or(-1);
  state.due_ms =
      optional_number<std::int64_t>(headers, retry_due_header, parse_decimal<std::int64_t>);
  state.first_failure_ms =
      optional_number<std::int64_t>(headers, first_failure_header, parse_decimal<std::int64_t>);
  if (const auto id = find_header(headers, correlation_id_header)) {
    state.correlation_id = std::string{*id};
  }
  return state;
}

header_list retry_headers(const record& r, const std::string& route, const destination& dest,
                          const failure_info& f, std::int64_t now_ms) {
  // Lenient on purpose: a malformed incoming header counts as absent, so the record still moves.
  const auto lenient = [&r](std::string_view name, auto parse) {
    const auto text = find_header(r.headers, name);
    return text ? parse(*text) : std::nullopt;
  };
  const std::int64_t previous_attempts =
      lenient(attempts_header, parse_non_negative<std::int64_t>).value_or(0);
  const int came_from_tier = lenient(retry_tier_header, parse_tier).value_or(-1);
  const bool has_first_failure =
      lenient(first_failure_header, parse_decimal<std::int64_t>).has_value();
  const auto carried_origin = find_header(r.headers, origin_topic_header);
  const auto carried_correlation = find_header(r.headers, correlation_id_header);

  header_list out;
  out.reserve(r.headers.size() + 17);
  for (const auto& h : r.headers) {
    if (!is_rewritten_on_every_hop(h.first)) {
      out.push_back(h);
    }
  }

  // Never capped: the receiver de-duplicates on the exact key.
  const std::string key = idempotency_key_for(r);
  set_header(out, idempotency_key_header, key);
  set_header(out, route_header, cap_header_value(route));
  if (carried_origin && !carried_origin->empty()) {
    keep_first(out, origin_topic_header);
    keep_first_if_well_formed(out, origin_partition_header, parse_non_negative<std::int32_t>);
    keep_first_if_well_formed(out, origin_offset_header, parse_non_negative<std::int64_t>);
    keep_first_if_well_formed(out, origin_timestamp_header, parse_decimal<std::int64_t>);
  } else {
    set_header(out, origin_topic_header, cap_header_value(r.topic));
    set_header(out, origin_partition_header, std::to_string(r.partition));
    set_header(out, origin_offset_header, std::to_string(r.offset));
    set_header(out, origin_timestamp_header, std::to_string(r.timestamp_ms));
  }
  set_header(out, attempts_header, std::to_string(attempts_after(previous_attempts, f.attempts)));
  switch (dest.what) {
    case destination::kind::tier:
      set_header(out, retry_tier_header, std::to_string(dest.tier_index));
      set_header(out, retry_due_header, std::to_string(now_ms + dest.delay.count()));
      break;
    case destination::kind::dlq:
    case destination::kind::receipt:  // a receipt is its own record (core/retry/receipt.hpp)
      set_header(out, retry_tier_header,
                 came_from_tier >= 0 ? std::to_string(came_from_tier) : std::string{no_retry_tier});
      break;
  }
  set_header(out, error_class_header, cap_header_value(f.error_class));
  set_header(out, error_message_header, cap_header_value(f.error_message));
  set_header(out, error_status_header, std::to_string(f.status));
  set_header(out, error_response_header, cap_header_value(f.response_excerpt));
  set_header(out, error_trace_header,
             merged_trace(find_header(r.headers, error_trace_header), f.trace));
  if (has_first_failure) {
    keep_first(out, first_failure_header);
  } else {
    set_header(out, first_failure_header, std::to_string(f.failed_at_ms));
  }
  set_header(out, last_failure_header, std::to_string(f.failed_at_ms));
  if (carried_correlation && !carried_correlation->empty()) {
    keep_first(out, correlation_id_header);
  } else {
    set_header(out, correlation_id_header, key);
  }
  return out;
}

std::string followers_value(const std::vector<std::int64_t>& later) {
  std::string out;
  for (std::size_t i = 0; i < later.size(); ++i) {
    std::string next = (i == 0 ? "" : ",") + std::to_string(later[i]);
    const std::string rest = ",+" + std::to_string(later.size() - i);
    // Room is kept for the count of what would not fit after this one.
    const bool last = i + 1 == later.size();
    if (out.size() + next.size() + (last ? 0 : rest.size()) > max_header_value) {
      out += i == 0 ? rest.substr(1) : rest;
      break;
    }
    out += next;
  }
  return out;
}

}  // namespace courier
