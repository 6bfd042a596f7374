#pragma once

// Reading a Prometheus text exposition (courier's /metrics) in tests: one series' value, or
// the sum over the samples of a family whose labels match.

#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace courier::testing {

// The value of one sample line, `series` written as courier writes it
// (name{label="value",...}); nothing when the series is missing.
inline std::optional<double> sample_value(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) {
    return std::nullopt;
  }
  return std::stod(text.substr(at + series.size() + 2));
}

struct sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Every sample line (comments skipped). Label values are read up to the closing quote, with
// the exposition's escapes (\\, \", \n) undone.
inline std::vector<sample> samples_of(const std::string& text) {
  std::vector<sample> out;
  std::istringstream in{text};
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    sample s;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') {
      s.name += line[i++];
    }
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        std::string key;
        while (i < line.size() && line[i] != '=') {
          key += line[i++];
        }
        i += 2;  // ="
        std::string value;
        while (i < line.size() && line[i] != '"') {
          if (line[i] == '\\' && i + 1 < line.size()) {
            ++i;
            value += line[i] == 'n' ? '\n' : line[i];
          } else {
            value += line[i];
          }
          ++i;
        }
        ++i;  // closing quote
        if (i < line.size() && line[i] == ',') {
          ++i;
        }
        s.labels.emplace(std::move(key), std::move(value));
      }
      ++i;  // }
    }
    s.value = std::stod(line.substr(i));
    out.push_back(std::move(s));
  }
  return out;
}

// The sum of the family `name`'s samples whose labels include every pair of `match`.
inline double sum_of(const std::vector<sample>& all, const std::string& name,
                     const std::map<std::string, std::string>& match = {}) {
  double sum = 0;
  for (const auto& s : all) {
    if (s.name != name) {
      continue;
    }
    bool matches = true;
    for (const auto& [k, v] : match) {
      const auto it = s.labels.find(k);
      matches = matches && it != s.labels.end() && it->second == v;
    }
    if (matches) {
      sum += s.value;
    }
  }
  return sum;
}

}  // namespace courier::testing
