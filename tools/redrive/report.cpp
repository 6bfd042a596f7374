#include "tools/redrive/report.hpp"

#include "core/retry/retry_headers.hpp"  // cap_header_value
#include "core/redrive/time_arg.hpp"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

namespace courier::redrive {
namespace {

using table = std::vector<std::vector<std::string>>;

// Left-aligned columns, two spaces apart; the first row is the header.
void print_table(std::ostream& out, const table& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) {
        line += std::string(widths[i] - row[i].size() + 2, ' ');
      }
    }
    out << line << '\n';
  }
}

// Keys, values and headers may be binary; JSON strings must be valid UTF-8.
std::string safe_string(const std::string& s) {
  return cap_header_value(s, std::numeric_limits<std::size_t>::max());
}

nlohmann::json optional_key(const std::optional<std::string>& key) {
  return key ? nlohmann::json(safe_string(*key)) : nlohmann::json(nullptr);
}

// One JSON line. Every string goes in through safe_string; should one ever miss it, its
// invalid bytes become U+FFFD here instead of dump() throwing type_error.316 (an abort).
void print_json(std::ostream& out, const nlohmann::json& j) {
  out << j.dump(/*indent=*/-1, /*indent_char=*/' ', /*ensure_ascii=*/false,
                nlohmann::json::error_handler_t::replace)
      << '\n';
}

}  // namespace

std::string format_age(std::int64_t age_ms) {
  const std::int64_t s = std::max<std::int64_t>(age_ms, 0) / 1000;
  if (s < 60) {
    return std::to_string(s) + "s";
  }
  if (s < 3600) {
    return std::to_string(s / 60) + "m";
  }
  if (s < 86'400) {
    return std::to_string(s / 3600) + "h";
  }
  return std::to_string(s / 86'400) + "d";
}

void print_list(std::ostream& out, const std::vector<list_row>& rows, std::int64_t now_ms,
                bool json) {
  if (json) {
    nlohmann::json records = nlohmann::json::array();
    for (const auto& r : rows) {
      records.push_back({{"coordinates", safe_string(r.coordinates)},
                         {"key", optional_key(r.key)},
                         {"error_class", safe_string(r.error_class)},
                         {"status", std::string{to_string(r.status)}},
                         {"origin", safe_string(r.origin)},
                         {"failed_at_ms", r.failed_at_ms},
                         {"age_ms", now_ms - r.failed_at_ms},
                         {"redrive_count", r.redrive_count}});
    }
    print_json(out, nlohmann::json{{"count", rows.size()}, {"records", records}});
    return;
  }
  table t{{"COORDINATES", "KEY", "ERROR CLASS", "STATUS", "ORIGIN", "AGE", "REDRIVES"}};
  for (const auto& r : rows) {
    t.push_back({r.coordinates, r.key ? *r.key : "(null)",
                 r.error_class.empty() ? "(none)" : r.error_class, std::string{to_string(r.status)},
                 r.origin, format_age(now_ms - r.failed_at_ms), std::to_string(r.redrive_count)});
  }
  print_table(out, t);
  out << rows.size() << " record(s)\n";
}

void print_stats(std::ostream& out, const dlq_stats& s, std::int64_t now_ms, bool json) {
  const auto dated = [](const std::optional<dated_record>& d) {
    if (!d) {
      return nlohmann::json(nullptr);
    }
    return nlohmann::json{{"coordinates", safe_string(d->coordinates)},
                          {"failed_at_ms", d->failed_at_ms},
                          {"failed_at", format_utc(d->failed_at_ms)}};
  };
  if (json) {
    nlohmann::json by_age = nlohmann::json::object();
    for (std::size_t i = 0; i < age_bucket_names.size(); ++i) {
      by_age[std::string{age_bucket_names[i]}] = s.by_age[i];
    }
    nlohmann::json by_class = nlohmann::json::object();
    for (const auto& [name, n] : s.by_error_class) {
      by_class[safe_string(name)] = n;
    }
    nlohmann::json by_origin = nlohmann::json::object();
    for (const auto& [name, n] : s.by_origin) {
      by_origin[safe_string(name)] = n;
    }
    print_json(out, nlohmann::json{{"total", s.total},
                                   {"redriven", s.redriven},
                                   {"malformed", s.malformed},
                                   {"by_error_class", by_class},
                                   {"by_origin", by_origin},
                                   {"by_age", by_age},
                                   {"oldest", dated(s.oldest)},
                                   {"newest", dated(s.newest)}});
    return;
  }
  out << "records: " << s.total << "  already redriven: " << s.redriven
      << "  malformed: " << s.malformed << "\n\n";
  table classes{{"ERROR CLASS", "RECORDS"}};
  for (const auto& [name, n] : s.by_error_class) {
    classes.push_back({name, std::to_string(n)});
  }
  print_table(out, classes);
  out << '\n';
  table origins{{"ORIGIN", "RECORDS"}};
  for (const auto& [name, n] : s.by_origin) {
    origins.push_back({name, std::to_string(n)});
  }
  print_table(out, origins);
  out << '\n';
  table ages{{"AGE", "RECORDS"}};
  for (std::size_t i = 0; i < age_bucket_names.size(); ++i) {
    ages.push_back({std::string{age_bucket_names[i]}, std::to_string(s.by_age[i])});
  }
  print_table(out, ages);
  if (s.oldest && s.newest) {
    out << "\noldest: " << s.oldest->coordinates << " " << format_utc(s.oldest->failed_at_ms)
        << " (" << format_age(now_ms - s.oldest->failed_at_ms) << " ago)\n"
        << "newest: " << s.newest->coordinates << " " << format_utc(s.newest->failed_at_ms) << " ("
        << format_age(now_ms - s.newest->failed_at_ms) << " ago)\n";
  }
}

void print_record(std::ostream& out, const record& r, bool json) {
  if (json) {
    nlohmann::json headers = nlohmann::json::array();
    for (const auto& [name, value] : r.headers) {
      headers.push_back({{"name", safe_string(name)}, {"value", safe_string(value)}});
    }
    print_json(out, nlohmann::json{{"topic", safe_string(r.topic)},
                                   {"partition", r.partition},
                                   {"offset", r.offset},
                                   {"timestamp_ms", r.timestamp_ms},
                                   {"key", optional_key(r.key)},
                                   {"value", safe_string(r.value.str())},
                                   {"headers", headers}});
    return;
  }
  out << "record:    " << r.topic << ':' << r.partition << ':' << r.offset << '\n'
      << "timestamp: " << format_utc(r.timestamp_ms) << '\n'
      << "key:       " << (r.key ? *r.key : "(null)") << '\n'
      << "headers:\n";
  for (const auto& [name, value] : r.headers) {
    out << "  " << name << ": " << value << '\n';
  }
  out << "value:\n" << r.value << '\n';
}

void print_run(std::ostream& out, const run_summary& s, bool json) {
  if (json) {
    nlohmann::json records = nlohmann::json::array();
    for (const auto& o : s.records) {
      nlohmann::json row{{"from", safe_string(o.from)},
                         {"key", optional_key(o.key)},
                         {"status", std::string{to_string(o.status)}}};
      if (!o.target.empty()) {
        // The target comes from the record's courier.origin.topic header: any bytes.
        row["target"] = safe_string(o.target);
        row["partition"] = o.partition;
      }
      if (o.offset >= 0) {
        row["offset"] = o.offset;
      }
      if (!o.reason.empty()) {
        row["reason"] = safe_string(o.reason);
      }
      records.push_back(std::move(row));
    }
    print_json(out, nlohmann::json{{"dry_run", s.dry_run},
                                   {"moved", s.moved},
                                   {"would_move", s.would_move},
                                   {"already_redriven", s.already_redriven},
                                   {"filtered_out", s.filtered_out},
                                   {"refused", s.refused},
                                   {"failed", s.failed},
                                   {"records", records}});
    return;
  }
  if (!s.records.empty()) {
    table t{{"FROM", "KEY", "STATUS", "TARGET", "DETAIL"}};
    for (const auto& o : s.records) {
      std::string target;
      if (!o.target.empty()) {
        target = o.target + (o.partition >= 0 ? "[" + std::to_string(o.partition) + "]" : "") +
                 (o.offset >= 0 ? "@" + std::to_string(o.offset) : "");
      }
      t.push_back(
          {o.from, o.key ? *o.key : "(null)", std::string{to_string(o.status)}, target, o.reason});
    }
    print_table(out, t);
    out << '\n';
  }
  if (s.dry_run) {
    out << "dry run: " << s.would_move << " would move, ";
  } else {
    out << "moved " << s.moved << ", ";
  }
  out << "already redriven " << s.already_redriven << ", filtered out " << s.filtered_out
      << ", refused " << s.refused << ", failed " << s.failed << '\n';
}

}  // namespace courier::redrive
