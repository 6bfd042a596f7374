// docs/runbook-dlq.md, run as the person on call would run it. Every line of every ```sh runbook
// block is a command; each runs with /bin/sh, in the document's order, against a real stand: a
// source topic and its DLQ on the suite's broker, three records dead-lettered by courier itself
// (two http_4xx, one http_503), courier running with its admin listener on a free port, and the
// partner's stand-in (mock_webhook's server, in this process: only it takes per-key rules). The
// variables the document defines at its top are set for them. A command must exit 0 and print
// something, unless its line ends with `# may print nothing`; `# expect: TEXT` requires TEXT in
// its output, `# exit: N` another status. After each redrive run the records it moved are back
// at the receiver, de-duplicated by key, and at the end every seeded record was delivered once.
//
// The document must have a section (a `## ` heading whose GitHub anchor is the alert's name in
// lower case) for every alert of docker/prometheus/alerts.yml, each with at least one command,
// and every runbook_url there must point at one of its anchors.

#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/record.hpp"
#include "core/retry/retry_tiers.hpp"
#include "demo/topic_reader.hpp"
#include "mock_webhook/server.hpp"
#include "tests/e2e/e2e_support.hpp"

namespace courier::e2e {
namespace {

// The checkout, from CMake (not __FILE__: a compiler cache may make that relative).
const std::filesystem::path source_dir{COURIER_SOURCE_DIR};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in{path};
  if (!in) {
    throw std::runtime_error("cannot read " + path.string());
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// GitHub's anchor of a heading: lower case, punctuation other than '-' and '_' dropped, spaces
// to '-'.
std::string anchor_of(const std::string& heading) {
  std::string out;
  for (const char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || c == '-' || c == '_') {
      out += static_cast<char>(std::tolower(u));
    } else if (c == ' ') {
      out += '-';
    }
  }
  return out;
}

struct command {
  std::string section;  // the `## ` heading it is under
  int line = 0;
  std::string text;
  bool may_be_silent = false;
  std::optional<std::string> expect;
  int status = 0;
};

struct runbook {
  std::vector<std::string> sections;  // the `## ` headings, in order
  std::vector<command> commands;
};

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string{} : s.substr(b, e - b + 1);
}

runbook parse_runbook(const std::string& text) {
  runbook out;
  std::istringstream lines{text};
  std::string line;
  std::string section;
  bool in_block = false;
  bool in_other_fence = false;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    const std::string t = trim(line);
    if (in_block) {
      if (t == "```") {
        in_block = false;
        continue;
      }
      if (t.empty() || t[0] == '#') {
        continue;
      }
      command c;
      c.section = section;
      c.line = number;
      c.text = t;
      if (const auto at = t.rfind(" # may print nothing"); at != std::string::npos) {
        c.may_be_silent = true;
      }
      if (const auto at = t.rfind(" # expect: "); at != std::string::npos) {
        c.expect = trim(t.substr(at + 11));
      }
      if (const auto at = t.rfind(" # exit: "); at != std::string::npos) {
        c.status = std::stoi(t.substr(at + 9));
      }
      out.commands.push_back(std::move(c));
      continue;
    }
    if (t.rfind("```", 0) == 0) {
      if (in_other_fence) {
        in_other_fence = false;
      } else if (t == "```sh runbook") {
        in_block = true;
      } else {
        in_other_fence = true;
      }
      continue;
    }
    if (!in_other_fence && line.rfind("## ", 0) == 0) {
      section = trim(line.substr(3));
      out.sections.push_back(section);
    }
  }
  if (in_block) {
    throw std::runtime_error("a ```sh runbook block is not closed");
  }
  return out;
}

// The alerts of docker/prometheus/alerts.yml and their runbook_url anchors.
struct alert_rules {
  std::vector<std::string> names;
  std::vector<std::string> anchors;
};

alert_rules parse_alerts(const std::string& yaml) {
  alert_rules out;
  const std::regex alert{R"(^\s*-\s*alert:\s*([A-Za-z0-9_]+)\s*$)"};
  const std::regex url{R"(^\s*runbook_url:\s*docs/runbook-dlq\.md#(\S+)\s*$)"};
  std::istringstream lines{yaml};
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_match(line, m, alert)) {
      out.names.push_back(m[1].str());
    } else if (std::regex_match(line, m, url)) {
      out.anchors.push_back(m[1].str());
    }
  }
  return out;
}

runbook load_runbook() { return parse_runbook(read_file(source_dir / "docs" / "runbook-dlq.md")); }

TEST(Runbook, HasASectionWithCommandsForEveryAlert) {
  const auto doc = load_runbook();
  ASSERT_FALSE(doc.commands.empty()) << "no ```sh runbook block in docs/runbook-dlq.md";
  const auto rules = parse_alerts(read_file(source_dir / "docker" / "prometheus" / "alerts.yml"));
  ASSERT_FALSE(rules.names.empty()) << "no alert in docker/prometheus/alerts.yml";
  std::set<std::string> anchors;
  for (const auto& s : doc.sections) {
    anchors.insert(anchor_of(s));
  }
  for (const auto& name : rules.names) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    EXPECT_EQ(anchors.count(lower), 1U) << "no section ## " << name << " (#" << lower << ")";
    const auto n = std::count_if(doc.commands.begin(), doc.commands.end(),
                                 [&](const command& c) { return anchor_of(c.section) == lower; });
    EXPECT_GT(n, 0) << "the section of " << name << " has no ```sh runbook command";
  }
  EXPECT_EQ(rules.anchors.size(), rules.names.size()) << "an alert without its runbook_url";
  for (const auto& a : rules.anchors) {
    EXPECT_EQ(anchors.count(a), 1U)
        << "runbook_url docs/runbook-dlq.md#" << a << " names no section";
  }
  for (const auto& c : doc.commands) {
    EXPECT_NE(c.text.back(), '\\') << "line " << c.line << ": one command per line";
  }
}

struct result {
  int status = -1;
  std::string out;
  std::string err;
};

// `text` with /bin/sh, stdin from /dev/null, bounded by 90 s.
result run_sh(const std::filesystem::path& dir, const std::string& text, int n) {
  const auto script = dir / ("command-" + std::to_string(n) + ".sh");
  const auto out = dir / ("command-" + std::to_string(n) + ".out");
  const auto err = dir / ("command-" + std::to_string(n) + ".err");
  std::ofstream{script} << text << "\n";
  result r;
  r.status = run_command("timeout 90 /bin/sh '" + script.string() + "' </dev/null >'" +
                         out.string() + "' 2>'" + err.string() + "'");
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

TEST(Runbook, EveryCommandRunsAgainstARealStandAndTheRedriveBringsTheDlqBack) {
  const auto doc = load_runbook();
  ASSERT_FALSE(doc.commands.empty()) << "no ```sh runbook block in docs/runbook-dlq.md";

  const temp_dir scratch{"e2e-runbook", temp_dir::keep_if_failed};
  const auto& dir = scratch.path();
  const std::string bootstrap = kafka_environment::bootstrap();

  // The partner: rejects two records once with 400 (http_4xx: permanent, straight to the
  // DLQ) and answers another 503 twice (both of its attempts; no tiers: http_503 in the DLQ).
  // Redriven, each of them is accepted: the partner "fixed its side".
  mock::server_settings ws;
  ws.hmac_secret = e2e_secret();
  mock::server receiver{ws};
  receiver.start();

  constexpr std::size_t n = 12;
  courier_settings s{unique_name("runbook-group"), unique_name("runbook"), receiver.url()};
  s.retry_tiers = {};
  s.max_attempts = 2;
  create_topic(s.topic, 1);
  seed(s.topic, 0, n);
  const std::string dlq = default_dlq_topic(s.topic);
  auto id = [&](int offset) { return s.topic + ":0:" + std::to_string(offset); };
  receiver.set_key_rule(id(2), mock::key_rule{400, 1});
  receiver.set_key_rule(id(5), mock::key_rule{503, 2});
  receiver.set_key_rule(id(9), mock::key_rule{400, 1});
  const std::set<std::string> dead_keys{id(2), id(5), id(9)};

  auto cfg = courier::testing::config_json(e2e_config(s));
  cfg["admin"] = {{"listen", "127.0.0.1:0"}};
  const auto config = dir / "courier.json";
  std::ofstream{config} << cfg.dump(2);
  ensure_topics(config, dir);
  const auto log_path = dir / "courier.log";
  auto courier = start_courier(config, dir, "courier");

  std::optional<nlohmann::json> bound;
  ASSERT_TRUE(wait_until(
      [&] {
        bound = log_line(courier->log(), "admin listener bound");
        return bound.has_value() || !courier->running();
      },
      30s));
  ASSERT_TRUE(bound.has_value()) << tail(courier->log());
  const auto admin_port = bound->value("port", 0);
  ASSERT_GT(admin_port, 0) << bound->dump();

  // Settled: the others delivered, the three in the DLQ.
  std::vector<record> parked;
  ASSERT_TRUE(wait_until(
      [&] {
        parked = demo::read_topic(bootstrap, dlq, dead_keys.size(), 2s);
        return parked.size() >= dead_keys.size() && receiver.arrivals().size() >= n - 3;
      },
      90s))
      << "DLQ " << parked.size() << ", delivered " << receiver.arrivals().size() << "\n"
      << tail(courier->log());
  std::map<std::string, std::string> class_of;  // idempotency key -> courier.error.class
  std::string record_coordinates;
  std::string record_key;
  for (const auto& r : parked) {
    const auto key = std::string{find_header(r.headers, "courier.idempotency.key").value_or("")};
    const auto cls = std::string{find_header(r.headers, "courier.error.class").value_or("")};
    ASSERT_EQ(dead_keys.count(key), 1U) << key;
    class_of[key] = cls;
    if (cls == "http_4xx" && record_coordinates.empty()) {
      record_coordinates =
          r.topic + ":" + std::to_string(r.partition) + ":" + std::to_string(r.offset);
      record_key = r.key.value_or("");
    }
  }
  ASSERT_EQ(class_of[id(2)], "http_4xx");
  ASSERT_EQ(class_of[id(5)], "http_503");
  ASSERT_EQ(class_of[id(9)], "http_4xx");
  ASSERT_FALSE(record_key.empty());
  for (const auto& key : dead_keys) {
    ASSERT_EQ(receiver.attempts_by_key().count(key), 1U) << key << " never reached the receiver";
  }

  // The variables the document's commands use.
  const std::string cls = "http_4xx";
  const std::string path_env =
      std::filesystem::path{COURIER_BINARY}.parent_path().string() + ":" +
      std::filesystem::path{REDRIVE_BINARY}.parent_path().string() + ":" +
      std::string{std::getenv("PATH") != nullptr ? std::getenv("PATH") : "/usr/bin:/bin"};
  const std::map<std::string, std::string> vars{
      {"PATH", path_env},
      {"BROKERS", bootstrap},
      {"CONFIG", config.string()},
      {"ADMIN", "http://127.0.0.1:" + std::to_string(admin_port)},
      {"ROUTE", "shipments"},
      {"TOPIC", s.topic},
      {"DLQ", dlq},
      {"WEBHOOK_URL", receiver.url()},
      {"COURIER_LOGS", "cat " + log_path.string()},
      {"CLASS", cls},
      {"RECORD", record_coordinates},
      {"KEY", record_key},
      {"HMAC_SECRET", e2e_secret()},
  };
  std::map<std::string, std::optional<std::string>> saved;
  for (const auto& [name, value] : vars) {
    const char* old = std::getenv(name.c_str());
    saved[name] = old != nullptr ? std::optional<std::string>{old} : std::nullopt;
    setenv(name.c_str(), value.c_str(), 1);
  }
  unsetenv("KAFKA_BROKERS");

  auto delivered = [&] {
    std::set<std::string> keys;
    for (const auto& a : receiver.arrivals()) {
      keys.insert(a.idempotency_key);
    }
    return keys;
  };

  int index = 0;
  std::size_t redrive_runs = 0;
  for (const auto& c : doc.commands) {
    ++index;
    SCOPED_TRACE("docs/runbook-dlq.md:" + std::to_string(c.line) + " (" + c.section +
                 "): " + c.text);
    const auto r = run_sh(dir, c.text, index);
    EXPECT_EQ(r.status, c.status) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
    if (!c.may_be_silent) {
      EXPECT_FALSE(trim(r.out).empty()) << "printed nothing; stderr:\n" << r.err;
    }
    if (c.expect) {
      EXPECT_NE(r.out.find(*c.expect), std::string::npos) << "no \"" << *c.expect << "\" in:\n"
                                                          << r.out << "\nstderr:\n"
                                                          << r.err;
    }
    // A redrive run (not a look: --stats, --list, --show, --dry-run): what it selected is back
    // at the receiver, once per key.
    const bool redrive_run =
        c.text.rfind("redrive ", 0) == 0 && c.text.find("--dry-run") == std::string::npos &&
        c.text.find("--stats") == std::string::npos && c.text.find("--list") == std::string::npos &&
        c.text.find("--show") == std::string::npos;
    if (redrive_run && r.status == 0) {
      ++redrive_runs;
      std::set<std::string> expected;
      for (const auto& [key, klass] : class_of) {
        if (c.text.find("--error-class") == std::string::npos || klass == cls) {
          expected.insert(key);
        }
      }
      const bool back = wait_until(
          [&] {
            const auto got = delivered();
            return std::includes(got.begin(), got.end(), expected.begin(), expected.end());
          },
          60s);
      EXPECT_TRUE(back) << "redriven records missing at the receiver\n" << tail(courier->log());
    }
  }
  EXPECT_GT(redrive_runs, 0U) << "the runbook never runs redrive";

  // Every seeded record reached the receiver, each key once; nothing else did.
  const auto got = delivered();
  EXPECT_EQ(got.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(got.count(id(static_cast<int>(i))), 1U) << id(static_cast<int>(i));
  }
  EXPECT_EQ(receiver.snapshot().ok, n) << "a key accepted twice";
  std::cout << "runbook: " << doc.commands.size() << " commands run, " << redrive_runs
            << " redrive runs\n";

  for (const auto& [name, value] : saved) {
    if (value) {
      setenv(name.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
  const auto code = terminate(*courier);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 0) << tail(courier->log());
}

}  // namespace
}  // namespace courier::e2e
