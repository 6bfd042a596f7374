#include "core/retry/error_trace.hpp"

#include "core/retry/header_value.hpp"
#include "core/time/civil_date.hpp"

namespace courier {
namespace {

// First line of a trace that lost its oldest entries to the cap.
constexpr std::string_view trace_cut_line = "\xE2\x80\xA6\n";

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

}  // namespace

std::string merged_trace(std::optional<std::string_view> previous,
                         const std::vector<std::string>& latest) {
  std::vector<std::string> entries;
  bool older_lost = false;
  if (previous && !previous->empty()) {
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
    return entries.empty() ? std::string{cut_marker} : cap_header_value(entries.back());
  }
  return std::string{trace_cut_line} + join_from(first);
}

std::string format_trace_entry(std::int64_t at_ms, std::string_view outcome) {
  std::string out = format_rfc3339_ms(at_ms);
  out += ' ';
  out += outcome;
  return out;
}

}  // namespace courier
