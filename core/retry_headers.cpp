#include "core/retry_headers.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <system_error>
#include <utility>

namespace courier {
namespace {

constexpr std::string_view ellipsis = "\xE2\x80\xA6";  // "…", U+2026
constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD
// First line of a trace that lost its oldest entries to the cap.
constexpr std::string_view trace_cut_line = "\xE2\x80\xA6\n";

// Length of the well-formed UTF-8 sequence starting at s[i], or 0 if there is none
// (overlong forms, surrogates and code points past U+10FFFF are not well formed).
std::size_t sequence_length(std::string_view s, std::size_t i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  if (lead < 0x80) {
    return 1;
  }
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead == 0xE0) {
    length = 3;
    low = 0xA0;
  } else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) {
    length = 3;
  } else if (lead == 0xED) {
    length = 3;
    high = 0x9F;
  } else if (lead == 0xF0) {
    length = 4;
    low = 0x90;
  } else if (lead >= 0xF1 && lead <= 0xF3) {
    length = 4;
  } else if (lead == 0xF4) {
    length = 4;
    high = 0x8F;
  } else {
    return 0;
  }
  if (s.size() - i < length) {
    return 0;
  }
  const auto second = static_cast<unsigned char>(s[i + 1]);
  if (second < low || second > high) {
    return 0;
  }
  for (std::size_t k = 2; k < length; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) {
      return 0;
    }
  }
  return length;
}

bool is_rewritten_on_every_hop(std::string_view name) {
  return name.substr(0, error_header_prefix.size()) == error_header_prefix ||
         name == retry_tier_header || name == retry_due_header || name == attempts_header ||
         name == last_failure_header;
}

// Sets `name` to `value`: the first occurrence in place, later duplicates dropped; appended
// when absent.
void set_header(header_list& headers, std::string_view name, std::string value) {
  bool seen = false;
  for (auto it = headers.begin(); it != headers.end();) {
    if (it->first != name) {
      ++it;
    } else if (seen) {
      it = headers.erase(it);
    } else {
      it->second = std::move(value);
      seen = true;
      ++it;
    }
  }
  if (!seen) {
    headers.emplace_back(std::string{name}, std::move(value));
  }
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

// Decimal digits with an optional '-', nothing else, in range; no whitespace or '+'.
template <typename T>
std::optional<T> parse_decimal(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) {
    return std::nullopt;
  }
  return value;
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

// One trace entry on one line, so the joined trace splits back into entries.
std::string trace_line(std::string_view entry) {
  std::string line = cap_header_value(entry);
  for (char& c : line) {
    if (c == '\n' || c == '\r') {
      c = ' ';
    }
  }
  return line;
}

// The earlier history from the record's trace, then this sequence's attempts; when it does not
// fit, the newest entries behind a "…" line.
std::string merged_trace(const header_list& headers, const std::vector<std::string>& latest) {
  std::vector<std::string> entries;
  bool older_lost = false;
  if (const auto previous = find_header(headers, error_trace_header);
      previous && !previous->empty()) {
    std::string_view rest = *previous;
    if (rest.substr(0, trace_cut_line.size()) == trace_cut_line) {
      older_lost = true;
      rest.remove_prefix(trace_cut_line.size());
    }
    while (!rest.empty()) {
      const std::size_t nl = rest.find('\n');
      entries.push_back(trace_line(rest.substr(0, nl)));
      rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    }
  }
  for (const auto& entry : latest) {
    entries.push_back(trace_line(entry));
  }

  const auto join_from = [&entries](std::size_t first) {
    std::string joined;
    for (std::size_t i = first; i < entries.size(); ++i) {
      if (i > first) {
        joined += '\n';
      }
      joined += entries[i];
    }
    return joined;
  };

  std::size_t total = 0;
  for (const auto& e : entries) {
    total += e.size() + 1;
  }
  if (!older_lost && total <= max_header_value + 1) {
    return join_from(0);
  }
  const std::size_t budget = max_header_value - trace_cut_line.size();
  std::size_t first = entries.size();
  std::size_t used = 0;
  while (first > 0) {
    const std::size_t add = entries[first - 1].size() + (first == entries.size() ? 0 : 1);
    if (used + add > budget) {
      break;
    }
    used += add;
    --first;
  }
  if (first == entries.size()) {
    // Not even the newest entry fits behind the marker: keep what fits of it.
    return entries.empty() ? std::string{ellipsis} : cap_header_value(entries.back());
  }
  return std::string{trace_cut_line} + join_from(first);
}

void append_two_digits(std::string& out, int value) {
  out += static_cast<char>('0' + value / 10);
  out += static_cast<char>('0' + value % 10);
}

}  // namespace

header_error::header_error(std::string_view header, std::string_view value)
    : std::runtime_error{"header " + std::string{header} + " has a malformed value \"" +
                         cap_header_value(value, 64) + "\""},
      header_{header},
      value_{value} {}

std::string cap_header_value(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + replacement.size());
  // Validating past the limit is wasted work: one byte over is enough to know a cut is due.
  for (std::size_t i = 0; i < text.size() && out.size() <= max_bytes;) {
    const std::size_t length = sequence_length(text, i);
    if (length == 0) {
      out += replacement;
      ++i;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  if (out.size() <= max_bytes) {
    return out;
  }
  const bool with_marker = max_bytes >= ellipsis.size();
  std::size_t keep = with_marker ? max_bytes - ellipsis.size() : max_bytes;
  // out is well formed, so backing off continuation bytes lands on a character start.
  while (keep > 0 && (static_cast<unsigned char>(out[keep]) & 0xC0) == 0x80) {
    --keep;
  }
  out.resize(keep);
  if (with_marker) {
    out += ellipsis;
  }
  return out;
}

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
    from.timestamp_ms = optional_number<std::int64_t>(headers, origin_timestamp_header,
                                                      parse_decimal<std::int64_t>)
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
    keep_first(out, origin_partition_header);
    keep_first(out, origin_offset_header);
    keep_first(out, origin_timestamp_header);
  } else {
    set_header(out, origin_topic_header, cap_header_value(r.topic));
    set_header(out, origin_partition_header, std::to_string(r.partition));
    set_header(out, origin_offset_header, std::to_string(r.offset));
    set_header(out, origin_timestamp_header, std::to_string(r.timestamp_ms));
  }
  set_header(out, attempts_header, std::to_string(previous_attempts + f.attempts));
  switch (dest.what) {
    case destination::kind::tier:
      set_header(out, retry_tier_header, std::to_string(dest.tier_index));
      set_header(out, retry_due_header, std::to_string(now_ms + dest.delay.count()));
      break;
    case destination::kind::dlq:
      set_header(out, retry_tier_header,
                 came_from_tier >= 0 ? std::to_string(came_from_tier) : std::string{no_retry_tier});
      break;
  }
  set_header(out, error_class_header, cap_header_value(f.error_class));
  set_header(out, error_message_header, cap_header_value(f.error_message));
  set_header(out, error_status_header, std::to_string(f.status));
  set_header(out, error_response_header, cap_header_value(f.response_excerpt));
  set_header(out, error_trace_header, merged_trace(r.headers, f.trace));
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

std::string format_trace_entry(std::int64_t at_ms, std::string_view outcome) {
  constexpr std::int64_t ms_per_day = 86'400'000;
  std::int64_t days = at_ms / ms_per_day;
  std::int64_t ms_of_day = at_ms % ms_per_day;
  if (ms_of_day < 0) {
    ms_of_day += ms_per_day;
    --days;
  }
  // Civil date from days since 1970-01-01 (H. Hinnant's days_from_civil, inverted).
  const std::int64_t z = days + 719'468;
  const std::int64_t era = (z >= 0 ? z : z - 146'096) / 146'097;
  const std::int64_t doe = z - era * 146'097;
  const std::int64_t yoe = (doe - doe / 1'460 + doe / 36'524 - doe / 146'096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const auto day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const auto month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);

  char year_text[24];
  std::snprintf(year_text, sizeof year_text, "%04lld", static_cast<long long>(year));
  const auto ms = static_cast<int>(ms_of_day % 1000);
  const auto seconds = static_cast<int>(ms_of_day / 1000 % 60);
  const auto minutes = static_cast<int>(ms_of_day / 60'000 % 60);
  const auto hours = static_cast<int>(ms_of_day / 3'600'000);

  std::string out{year_text};
  out += '-';
  append_two_digits(out, month);
  out += '-';
  append_two_digits(out, day);
  out += 'T';
  append_two_digits(out, hours);
  out += ':';
  append_two_digits(out, minutes);
  out += ':';
  append_two_digits(out, seconds);
  out += '.';
  out += static_cast<char>('0' + ms / 100);
  append_two_digits(out, ms % 100);
  out += "Z ";
  out += outcome;
  return out;
}

}  // namespace courier
