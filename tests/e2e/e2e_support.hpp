#pragma once

// Support for the end-to-end suite: a real Apache Kafka broker (tools/kafka-local, or
// KAFKA_BOOTSTRAP), the mock_webhook and courier executables as processes, and the receiver's
// GET /stats.

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <librdkafka/rdkafka.h>

#include "tests/support/child_process.hpp"
#include "tests/support/courier_json.hpp"
#include "tests/support/courier_process.hpp"
#include "tests/support/kafka_group.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/wait_until.hpp"
#include "core/kafka/admin.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka/consumer.hpp"
#include "core/kafka/producer.hpp"
#include "demo/shipments.hpp"
#include "mock_webhook/server.hpp"
#include "topology/topics.hpp"

namespace courier::e2e {

using courier::testing::child_process;
using courier::testing::courier_process;
using courier::testing::temp_dir;
using courier::testing::wait_until;

using namespace std::chrono_literals;

inline std::string e2e_secret() { return "e2e-secret"; }

// Runs a shell command; its exit status (-1 when it did not exit normally).
inline int run_command(const std::string& command) {
  const int status = std::system(command.c_str());
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs a shell command and returns its stdout without the trailing newline.
inline std::string command_output(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    return out;
  }
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) {
    out += buf;
  }
  pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) {
    out.pop_back();
  }
  return out;
}

inline std::string kafka_local_command(const std::string& verb) {
  return std::string{"'"} + KAFKA_LOCAL + "' " + verb;
}

// The broker of the whole suite. KAFKA_BOOTSTRAP wins (ctest's fixture sets it, see
// tests/e2e/CMakeLists.txt); otherwise `kafka-local start --fresh` once for the process and
// `kafka-local stop` at its end.
class kafka_environment : public ::testing::Environment {
 public:
  void SetUp() override {
    // kafka-local's port and data dir of this suite, unless the caller chose others.
    setenv("KAFKA_LOCAL_PORT", E2E_KAFKA_PORT, 0);
    setenv("KAFKA_LOCAL_DATA", E2E_KAFKA_DATA, 0);
    setenv("KAFKA_LOCAL_QUIET", "1", 0);
    if (const char* b = std::getenv("KAFKA_BOOTSTRAP"); b != nullptr && *b != '\0') {
      bootstrap_ = b;
      return;
    }
    if (run_command(kafka_local_command("start --fresh")) != 0) {
      throw std::runtime_error("kafka-local start --fresh failed (see its line above)");
    }
    started_ = true;
    bootstrap_ = command_output(kafka_local_command("bootstrap"));
  }

  void TearDown() override {
    if (started_) {
      run_command(kafka_local_command("stop"));
    }
  }

  static const std::string& bootstrap() { return bootstrap_; }

  // True when the suite's broker is kafka-local's (it can be killed and restarted).
  static bool controllable() {
    return run_command(kafka_local_command("status >/dev/null")) == 0 &&
           command_output(kafka_local_command("bootstrap")) == bootstrap_;
  }

 private:
  bool started_ = false;
  static inline std::string bootstrap_;
};

// Names unique per process, so a rerun against a long-lived broker never meets old data.
inline std::string unique_name(const std::string& base) {
  return "e2e." + base + "." + std::to_string(getpid()) + "." +
         std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count() %
                        100000000);
}

inline void create_topic(const std::string& topic, int partitions) {
  kafka::create_topics(kafka_environment::bootstrap(), {{topic, partitions}}, 30s);
}

// A partner in this process (mock_webhook's server) on loopback, checking the suite's HMAC.
inline std::unique_ptr<mock::server> in_process_receiver() {
  mock::server_settings ws;
  ws.hmac_secret = e2e_secret();
  auto r = std::make_unique<mock::server>(ws);
  r->start();
  return r;
}

// Every topic `cfg` names (the routes' sources, tiers, DLQs, receipts), `partitions` each.
inline void create_route_topics(const courier_config& cfg, int partitions) {
  for (const auto& t : topology::required_topics(cfg)) {
    create_topic(t, partitions);
  }
}

// Produces shipments [from, from + count) (keys shp-<index>) and waits for every ack.
inline void seed(const std::string& topic, std::size_t from, std::size_t count) {
  kafka::producer p{kafka_environment::bootstrap()};
  for (std::size_t i = from; i < from + count; ++i) {
    p.produce(topic, -1, demo::shipment_id(i), demo::make_shipment(i, 7));
  }
  p.flush(30s);
  if (p.failed() != 0 || p.acked() != count) {
    throw std::runtime_error("seeding " + topic + ": " + std::to_string(p.failed()) +
                             " records failed");
  }
}

inline std::int64_t committed_total(const std::string& group, const std::string& topic,
                                    int partitions) {
  std::int64_t sum = 0;
  for (const auto& [partition, offset] :
       kafka::committed_offsets(kafka_environment::bootstrap(), group, topic, partitions, 15s)) {
    sum += offset;
  }
  return sum;
}

// Whether the group's committed offsets of `topic` come to sum to `n` within 30 s; a failure says
// the sum they reached.
// After a broker restart the group's coordinator takes a moment to load: its answers
// NOT_COORDINATOR and COORDINATOR_LOAD_IN_PROGRESS mean "ask again", not a failure.
inline ::testing::AssertionResult committed_reaches(const std::string& group,
                                                    const std::string& topic, int partitions,
                                                    std::int64_t n) {
  const auto reached = [&] {
    try {
      return committed_total(group, topic, partitions) == n;
    } catch (const kafka::kafka_error& e) {
      const auto code = e.code();
      if (code == RD_KAFKA_RESP_ERR_NOT_COORDINATOR ||
          code == RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS ||
          code == RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE) {
        return false;
      }
      throw;
    }
  };
  if (wait_until(reached, 30s)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "committed: " << committed_total(group, topic, partitions);
}

struct receiver_stats {
  std::uint64_t total = 0, ok = 0, fail_503 = 0, fail_timeout = 0, fail_401 = 0, fail_400 = 0,
                unique_keys = 0, duplicates = 0;
  std::string raw;
};

// One request to http://127.0.0.1:<port><target>, blocking, bounded by `timeout`: the answer,
// or nothing when there was none. A POST carries `body` as application/json.
inline std::optional<boost::beast::http::response<boost::beast::http::string_body>>
loopback_exchange(boost::beast::http::verb verb, std::uint16_t port, const std::string& target,
                  const std::string& body,
                  const std::vector<std::pair<std::string, std::string>>& headers,
                  std::chrono::milliseconds timeout) {
  namespace beast = boost::beast;
  namespace http = beast::http;
  try {
    boost::asio::io_context ioc;
    beast::tcp_stream stream{ioc};
    stream.expires_after(timeout);
    stream.connect(
        boost::asio::ip::tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), port});
    http::request<http::string_body> req{verb, target, 11};
    req.set(http::field::host, "127.0.0.1");
    if (verb == http::verb::post) {
      req.set(http::field::content_type, "application/json");
    }
    for (const auto& [name, value] : headers) {
      req.set(name, value);
    }
    req.body() = body;
    req.prepare_payload();
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    beast::error_code ec;
    stream.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
    return res;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// GET http://127.0.0.1:<port><target>: the body of a 200, else nothing.
inline std::optional<std::string> http_get(std::uint16_t port, const std::string& target,
                                           std::chrono::milliseconds timeout) {
  auto res = loopback_exchange(boost::beast::http::verb::get, port, target, "", {}, timeout);
  if (!res || res->result_int() != 200) {
    return std::nullopt;
  }
  return std::move(res->body());
}

// The first of courier's JSON log lines with this event, if any yet.
inline std::optional<nlohmann::json> log_line(const std::string& log, const std::string& event) {
  std::istringstream lines{log};
  std::string line;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.value("event", std::string{}) == event) {
      return j;
    }
  }
  return std::nullopt;
}

// The port of courier's admin listener, from its "admin listener bound" log line (the test
// configs listen on port 0); 0 when it has not logged it yet.
inline std::uint16_t admin_port_in(const std::string& log) {
  const auto bound = log_line(log, "admin listener bound");
  return bound ? bound->value("port", std::uint16_t{0}) : std::uint16_t{0};
}

// The partner's stand-in as a process: mock_webhook on an ephemeral loopback port.
class webhook {
 public:
  webhook(const std::filesystem::path& dir, int latency_ms, double fail_rate_503 = 0,
          double fail_rate_400 = 0) {
    proc_ = std::make_unique<child_process>(
        MOCK_WEBHOOK_BINARY, std::vector<std::string>{"--port", "0", "--address", "127.0.0.1"},
        std::vector<std::string>{
            "HMAC_SECRET=" + e2e_secret(), "LATENCY_MS=" + std::to_string(latency_ms),
            "FAIL_RATE_503=" + std::to_string(fail_rate_503),
            "FAIL_RATE_400=" + std::to_string(fail_rate_400), "FAIL_RATE_TIMEOUT=0"},
        (dir / "mock_webhook.log").string(), std::set<std::string>{"PORT"});
    const std::regex listening{R"(listening on http://127\.0\.0\.1:(\d+))"};
    // The match must not outlive the log text it points into: keep the port as a string.
    std::string port;
    const bool up = wait_until(
        [&] {
          const auto text = proc_->log();
          std::smatch m;
          if (!std::regex_search(text, m, listening)) {
            return false;
          }
          port = m[1].str();
          return true;
        },
        10s);
    if (!up) {
      throw std::runtime_error("mock_webhook did not start: " + proc_->log());
    }
    port_ = static_cast<std::uint16_t>(std::stoi(port));
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/deliver"; }

  receiver_stats stats() const {
    receiver_stats s;
    const auto body = http_get(port_, "/stats", 2s);
    if (!body) {
      return s;
    }
    const auto j = nlohmann::json::parse(*body);
    s.total = j.value("total", 0ULL);
    s.ok = j.value("ok", 0ULL);
    s.fail_503 = j.value("fail_503", 0ULL);
    s.fail_timeout = j.value("fail_timeout", 0ULL);
    s.fail_401 = j.value("fail_401", 0ULL);
    s.fail_400 = j.value("fail_400", 0ULL);
    s.unique_keys = j.value("unique_keys", 0ULL);
    s.duplicates = j.value("duplicates", 0ULL);
    s.raw = *body;
    return s;
  }

  std::uint64_t ok() const { return stats().ok; }

  // The counters once they stop moving (requests already in the receiver's socket buffers
  // are counted after their sender died): equal on two reads 100 ms apart, within 5 s.
  receiver_stats settled_stats() const {
    auto last = stats();
    wait_until(
        [&] {
          std::this_thread::sleep_for(std::chrono::milliseconds{100});
          auto now = stats();
          const bool same = now.raw == last.raw;
          last = std::move(now);
          return same;
        },
        5s);
    return last;
  }

 private:
  std::unique_ptr<child_process> proc_;
  std::uint16_t port_ = 0;
};

struct courier_settings {
  std::string group;
  std::string topic;
  std::string url;
  int max_in_flight = 64;
  // librdkafka's auto commit of the stored offsets; short, so little is delivered but
  // uncommitted at any moment.
  int auto_commit_interval_ms = 100;
  std::vector<std::chrono::milliseconds> retry_tiers{1s, 2s};
  int max_attempts = 4;
};

// The suite's broker, one route "shipments" as `s` says, short sessions and fetch waits.
inline courier_config e2e_config(const courier_settings& s) {
  courier_config cfg;
  cfg.kafka.brokers = kafka_environment::bootstrap();
  cfg.kafka.group_id = s.group;
  cfg.kafka.properties = courier::testing::fast_group();
  cfg.kafka.properties.insert(
      {{"auto.commit.interval.ms", std::to_string(s.auto_commit_interval_ms)},
       {"fetch.wait.max.ms", "50"},
       {"reconnect.backoff.max.ms", "1000"}});
  route_config r;
  r.name = "shipments";
  r.topic = s.topic;
  r.url = s.url;
  r.allow_private_targets = true;  // the mock webhook listens on loopback
  r.max_in_flight = static_cast<std::size_t>(s.max_in_flight);
  r.max_in_flight_per_partition = static_cast<std::size_t>(s.max_in_flight);
  r.retry_tiers = s.retry_tiers;
  r.retry.initial = 20ms;
  r.retry.max = 500ms;
  r.retry.max_attempts = s.max_attempts;
  r.http.timeout = 2s;
  cfg.routes.push_back(r);
  return cfg;
}

// `courier topics ensure`: the route's retry-tier and DLQ topics next to its source topic.
inline void ensure_topics(const std::filesystem::path& config, const std::filesystem::path& dir) {
  courier_process ensure{{"topics", "ensure", "--config", config.string()},
                         {"HMAC_SECRET=" + e2e_secret()},
                         (dir / "topics-ensure.log").string()};
  const auto code = ensure.wait_exit(60s);
  if (!code || *code != 0) {
    throw std::runtime_error("courier topics ensure failed: " + ensure.log());
  }
}

// The config file, and every topic it names (the source topic exists already).
inline std::filesystem::path prepare(const courier_settings& s, const std::filesystem::path& dir) {
  const auto path = courier::testing::write_config(e2e_config(s), dir);
  ensure_topics(path, dir);
  return path;
}

// `courier run` as a process; its log (stderr) goes to <dir>/<name>.log.
inline std::unique_ptr<courier_process> start_courier(const std::filesystem::path& config,
                                                      const std::filesystem::path& dir,
                                                      const std::string& name) {
  return std::make_unique<courier_process>(
      std::vector<std::string>{"run", "--config", config.string(), "--log-level", "info"},
      std::vector<std::string>{"HMAC_SECRET=" + e2e_secret()}, (dir / (name + ".log")).string());
}

// The config file with `route_patch` merged into its route (courier::testing::config_json
// writes only some of a route's keys, head_of_line_records not among them) and
// `kafka_properties` into kafka.properties, and every topic it names.
inline std::filesystem::path prepare_with(
    const courier_settings& s, const nlohmann::json& route_patch, const std::filesystem::path& dir,
    const nlohmann::json& kafka_properties = nlohmann::json::object()) {
  auto doc = courier::testing::config_json(e2e_config(s));
  doc["routes"][0].merge_patch(route_patch);
  doc["kafka"]["properties"].merge_patch(kafka_properties);
  const auto path = dir / "courier.json";
  std::ofstream{path} << doc.dump(2);
  ensure_topics(path, dir);
  return path;
}

// The receiver's port, from its URL (http://127.0.0.1:<port>/deliver).
inline std::uint16_t port_of(const webhook& w) {
  const auto url = w.url();
  const auto colon = url.rfind(':');
  return static_cast<std::uint16_t>(std::stoi(url.substr(colon + 1)));
}

// POST http://127.0.0.1:<port><target>: the status, or 0 when there was no answer.
inline int http_post(std::uint16_t port, const std::string& target, const std::string& body,
                     const std::vector<std::pair<std::string, std::string>>& headers,
                     std::chrono::milliseconds timeout) {
  const auto res =
      loopback_exchange(boost::beast::http::verb::post, port, target, body, headers, timeout);
  return res ? static_cast<int>(res->result_int()) : 0;
}

// `promtool check metrics` (Prometheus' own linter) on a scrape, kept in `file`: empty when it
// accepts the text, else its complaints and exit status.
inline std::string promtool_complaints(const std::string& scrape,
                                       const std::filesystem::path& file) {
  std::ofstream{file} << scrape;
  const auto out = command_output(std::string{"'"} + PROMTOOL_BINARY + "' check metrics < '" +
                                  file.string() + "' 2>&1; echo \"exit status $?\"");
  return out == "exit status 0" ? std::string{} : out;
}

// Every one of the n seeded records reached the receiver once, signed right.
inline void expect_accounting(const webhook& w, std::uint64_t n) {
  const auto s = w.stats();
  EXPECT_EQ(s.ok, n) << s.raw;
  EXPECT_EQ(s.unique_keys, n) << "a key the topic never had: " << s.raw;
  EXPECT_EQ(s.fail_401, 0U) << s.raw;
}

// The end of a process log, for failure messages.
inline std::string tail(const std::string& log, std::size_t bytes = 4000) {
  return log.size() > bytes ? log.substr(log.size() - bytes) : log;
}

inline std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

// Waits until the receiver counted `target` deliveries; gives up early when a courier exited.
inline bool wait_delivered(const webhook& w, std::uint64_t target,
                           std::chrono::milliseconds timeout,
                           std::initializer_list<child_process*> couriers) {
  bool exited = false;
  const bool done = wait_until(
      [&] {
        for (auto* c : couriers) {
          if (!c->running()) {
            exited = true;
          }
        }
        return exited || w.ok() >= target;
      },
      timeout);
  return done && w.ok() >= target;
}

// SIGTERM, then the exit status within 30 s (courier drains for at most 10 s).
inline std::optional<int> terminate(child_process& p) {
  p.signal(SIGTERM);
  return p.wait_exit(30s);
}

// SIGTERM, and exit 0 within terminate()'s bound.
inline void expect_clean_stop(child_process& c) {
  const auto code = terminate(c);
  ASSERT_TRUE(code.has_value()) << tail(c.log());
  EXPECT_EQ(*code, 0) << tail(c.log());
}

// The end offsets of a topic as a client of one isolation level sees them: the high watermark
// (read_uncommitted) or the last stable offset (read_committed). While a transaction is open
// on a partition, or was left open by a producer that died, its LSO is below its HWM.
class end_offsets_probe {
 public:
  explicit end_offsets_probe(const std::string& isolation_level) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    const std::string group = unique_name("probe");
    for (const auto& [name, value] :
         std::map<std::string, std::string>{{"bootstrap.servers", kafka_environment::bootstrap()},
                                            {"group.id", group},
                                            {"isolation.level", isolation_level}}) {
      if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), err, sizeof err) !=
          RD_KAFKA_CONF_OK) {
        rd_kafka_conf_destroy(conf);
        throw std::runtime_error(std::string{"probe config: "} + err);
      }
    }
    rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (rk_ == nullptr) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(std::string{"probe: "} + err);
    }
  }
  ~end_offsets_probe() { rd_kafka_destroy(rk_); }
  end_offsets_probe(const end_offsets_probe&) = delete;
  end_offsets_probe& operator=(const end_offsets_probe&) = delete;

  // The sum of the partitions' end offsets; nothing when a query failed.
  std::optional<std::int64_t> total(const std::string& topic, int partitions,
                                    std::chrono::milliseconds timeout) {
    std::int64_t sum = 0;
    for (int p = 0; p < partitions; ++p) {
      std::int64_t low = 0;
      std::int64_t high = 0;
      if (rd_kafka_query_watermark_offsets(rk_, topic.c_str(), p, &low, &high,
                                           static_cast<int>(timeout.count())) !=
          RD_KAFKA_RESP_ERR_NO_ERROR) {
        return std::nullopt;
      }
      sum += high;
    }
    return sum;
  }

 private:
  rd_kafka_t* rk_ = nullptr;
};

// Every record of `topic` from the beginning to the end its partitions had when each was
// reached (partition EOF), read by a throw-away group with `isolation.level`. Throws when not
// every partition reached its end within `timeout`.
inline std::vector<record> read_to_end(const std::string& topic, int partitions,
                                       const std::string& isolation_level,
                                       std::chrono::milliseconds timeout) {
  std::set<int> at_end;
  const std::string eof_prefix = "reached the end of " + topic + "[";
  kafka::consumer c{kafka::consumer_settings{kafka_environment::bootstrap(),
                                             unique_name("reader-" + isolation_level),
                                             {topic},
                                             {{"isolation.level", isolation_level},
                                              {"enable.partition.eof", "true"},
                                              {"enable.auto.commit", "false"},
                                              {"fetch.wait.max.ms", "50"}},
                                             {}},
                    {{},
                     {},
                     {},
                     [&](const std::string& message) {
                       if (message.rfind(eof_prefix, 0) == 0) {
                         at_end.insert(std::stoi(message.substr(eof_prefix.size())));
                       }
                     },
                     {},
                     {}}};
  std::vector<record> out;
  const bool all_at_end =
      wait_until([&] { return static_cast<int>(at_end.size()) >= partitions; }, timeout,
                 [&] {
                   for (auto& r : c.poll(std::chrono::milliseconds{100}, 500)) {
                     out.push_back(std::move(r));
                   }
                 });
  c.close();
  if (!all_at_end) {
    throw std::runtime_error("reading " + topic + ": only " + std::to_string(at_end.size()) +
                             " of " + std::to_string(partitions) + " partitions reached their end");
  }
  return out;
}

}  // namespace courier::e2e
