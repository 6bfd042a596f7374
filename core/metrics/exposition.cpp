#include "core/metrics/exposition.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace courier::metrics {

std::string escape_label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (const char c : v) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

std::string escape_help(std::string_view v) {
  std::string out;
  for (const char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string_view type_name(family_type t) {
  switch (t) {
    case family_type::counter:
      return "counter";
    case family_type::gauge:
      return "gauge";
    case family_type::histogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

std::string format_value(double v) {
  if (std::isnan(v)) {
    return "NaN";
  }
  if (std::isinf(v)) {
    return v > 0 ? "+Inf" : "-Inf";
  }
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    return std::to_string(static_cast<long long>(v));
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // The shortest text that reads back as the same double.
  for (int precision = 1; precision <= 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", precision, v);
    if (std::strtod(shorter, nullptr) == v) {
      return shorter;
    }
  }
  return buf;
}

// Distinct by role: a family's name and help, in the format's order.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
void exposition::family(std::string_view name, std::string_view help, family_type type) {
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  out_ += escape_help(help);
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type_name(type);
  out_ += '\n';
}

void exposition::write_labels(const labels& l, std::string_view extra_name,
                              std::string_view extra_value) {
  if (l.empty() && extra_name.empty()) {
    return;
  }
  out_ += '{';
  bool first = true;
  auto one = [&](std::string_view k, std::string_view v) {
    if (!first) {
      out_ += ',';
    }
    first = false;
    out_ += k;
    out_ += "=\"";
    out_ += escape_label_value(v);
    out_ += '"';
  };
  for (const auto& [k, v] : l) {
    one(k, v);
  }
  if (!extra_name.empty()) {
    one(extra_name, extra_value);
  }
  out_ += '}';
}

void exposition::sample(std::string_view name, const labels& l, double value) {
  out_ += name;
  write_labels(l);
  out_ += ' ';
  out_ += format_value(value);
  out_ += '\n';
}

void exposition::sample(std::string_view name, const labels& l, std::uint64_t value) {
  out_ += name;
  write_labels(l);
  out_ += ' ';
  out_ += std::to_string(value);
  out_ += '\n';
}

histogram::histogram(std::vector<double> upper_bounds) : bounds_(std::move(upper_bounds)) {
  if (bounds_.empty() || bounds_.size() > max_buckets ||
      !std::is_sorted(bounds_.begin(), bounds_.end()) ||
      std::adjacent_find(bounds_.begin(), bounds_.end()) != bounds_.end()) {
    throw std::invalid_argument("histogram: 1 to 24 increasing bucket bounds");
  }
}

void histogram::observe(double seconds) {
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), seconds);
  const auto i = static_cast<std::size_t>(it - bounds_.begin());  // bounds_.size(): +Inf
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_micros_.fetch_add(static_cast<std::uint64_t>(std::max(0.0, seconds) * 1e6),
                        std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

void histogram::render(exposition& e, std::string_view name, const labels& l) const {
  const std::string bucket = std::string{name} + "_bucket";
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += buckets_[i].load(std::memory_order_relaxed);
    auto with_le = l;
    with_le.emplace_back("le", i < bounds_.size() ? format_value(bounds_[i]) : "+Inf");
    e.sample(bucket, with_le, cumulative);
  }
  e.sample(std::string{name} + "_sum", l,
           static_cast<double>(sum_micros_.load(std::memory_order_relaxed)) / 1e6);
  // The count is the +Inf bucket's, so the two always agree within one scrape.
  e.sample(std::string{name} + "_count", l, cumulative);
}

std::vector<double> latency_buckets(double ceiling_seconds) {
  // 1, 2.5 and 5 of each decade from 5 ms: 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5 10 ...
  constexpr std::array<double, 3> steps{1.0, 2.5, 5.0};
  std::vector<double> out;
  for (int exponent = -3; out.size() + 1 < histogram::max_buckets; ++exponent) {
    const double decade = std::pow(10.0, exponent);
    if (decade >= ceiling_seconds) {
      break;
    }
    for (const double step : steps) {
      const double bound = step * decade;
      if (bound >= 0.005 && bound < ceiling_seconds && out.size() + 1 < histogram::max_buckets) {
        out.push_back(bound);
      }
    }
  }
  out.push_back(ceiling_seconds);
  return out;
}

}  // namespace courier::metrics
