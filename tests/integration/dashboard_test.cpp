// The Grafana dashboard (docker/grafana/courier-dashboard.json) against Debian's real Prometheus:
// Prometheus scrapes a running pipeline's admin listener under a small chaos load (503s and
// 400s, receipts, a rate limit, a retry budget, auto-redrive), and every panel's query is
// evaluated through Prometheus's HTTP API: each must parse and return data.

#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/serving_admin.hpp"
#include "tests/integration/stand.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/http_get.hpp"
#include "tests/support/temp_dir.hpp"
#include "topology/pipeline.hpp"

namespace courier::testing {
namespace {

using namespace std::chrono_literals;

// A loopback port nobody listens on now (bound and released), for Prometheus's web listener.
std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

std::string url_encoded(const std::string& s) {
  static const char* const hex = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : s) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4U];
      out += hex[c & 15U];
    }
  }
  return out;
}

struct panel_query {
  std::string title;
  std::string expr;
};

std::vector<panel_query> dashboard_queries() {
  std::ifstream in{std::string{COURIER_SOURCE_DIR} + "/docker/grafana/courier-dashboard.json"};
  const auto dashboard = nlohmann::json::parse(in);
  std::vector<panel_query> out;
  for (const auto& panel : dashboard.at("panels")) {
    for (const auto& target : panel.at("targets")) {
      out.push_back({panel.at("title").get<std::string>(), target.at("expr").get<std::string>()});
    }
  }
  return out;
}

TEST(Dashboard, EveryPanelsQueryParsesAndReturnsDataFromARealPrometheus) {
  const auto queries = dashboard_queries();
  ASSERT_GE(queries.size(), 10U);
  stand s{2};
  s.receiver->set_chaos(mock::chaos{0.1, 0, 0ms, 0.05, false});  // 10% 503s, 5% 400s
  const std::string receipts = s.topic + ".receipts";
  s.cluster.create_topic(receipts, 2);
  s.route().receipts_topic = receipts;
  s.route().rate_limit = rate_limit_config{};
  s.route().rate_limit->requests_per_second = 500;
  s.route().retry_budget = retry_budget_config{};
  s.route().auto_redrive = auto_redrive_config{};
  s.route().retry.max_attempts = 2;
  caf::actor_system sys{s.sys_cfg};
  topology::pipeline p{sys, s.cfg, {}};
  serving_admin admin_plane{sys, p};
  s.seed(400);

  const temp_dir dir{"dashboard", temp_dir::keep_if_failed};
  const auto config = dir.path() / "prometheus.yml";
  std::ofstream{config} << "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
                        << "scrape_configs:\n"
                        << "  - job_name: courier\n"
                        << "    static_configs: [{targets: ['127.0.0.1:" << admin_plane.port()
                        << "']}]\n";
  const auto web = free_port();
  child_process prometheus{
      PROMETHEUS_BINARY,
      {"--config.file=" + config.string(), "--storage.tsdb.path=" + (dir.path() / "data").string(),
       "--web.listen-address=127.0.0.1:" + std::to_string(web)},
      {},
      (dir.path() / "prometheus.log").string()};
  // Prometheus's answer; null while it does not listen yet.
  const auto query = [&](const std::string& expr) {
    try {
      const auto r = http_get(web, "/api/v1/query?query=" + url_encoded(expr));
      return nlohmann::json::parse(r.body, nullptr, false);
    } catch (const std::exception&) {  // connection refused: still starting
      return nlohmann::json{};
    }
  };
  // Enough scrapes for every rate() window: the first answer, then 20 s of samples.
  ASSERT_TRUE(wait_until(
      [&] {
        const auto up = query("up");
        return up.is_object() && up.value("status", "") == "success" &&
               !up["data"]["result"].empty() && up["data"]["result"][0]["value"][1] == "1";
      },
      60s))
      << prometheus.log();
  ASSERT_TRUE(wait_until(
      [&] {
        const auto samples = query("count_over_time(courier_build_info[1m])");
        return samples.is_object() && !samples["data"]["result"].empty() &&
               std::stoi(samples["data"]["result"][0]["value"][1].get<std::string>()) >= 20;
      },
      60s));

  for (const auto& q : queries) {
    SCOPED_TRACE(q.title + ": " + q.expr);
    const auto answer = query(q.expr);
    ASSERT_TRUE(answer.is_object()) << "no answer from Prometheus";
    if (answer.value("status", "") != "success") {
      ADD_FAILURE() << "Prometheus refused the query: " << answer.dump();
      continue;
    }
    EXPECT_FALSE(answer.at("data").at("result").empty()) << "the query returns nothing";
  }
  admin_plane.stop();
  p.stop();
}

}  // namespace
}  // namespace courier::testing
