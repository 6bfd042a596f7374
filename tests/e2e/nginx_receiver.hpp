#pragma once

// The partner's stand-in for the partner-contract end-to-end tests: Debian's nginx on loopback
// (independent of courier; tools/bench/lib.sh and tests/core/http/nginx_tls_test.cpp start it
// the same way), answering 503 to a share of the requests (split_clients on $request_id) and
// 200 to the rest, and writing one access-log line per request with its arrival time.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "tests/support/child_process.hpp"
#include "tests/support/wait_until.hpp"

namespace courier::e2e {

inline constexpr const char* nginx_binary = "/usr/sbin/nginx";

// One request as nginx logged it. nginx writes "-" for a header the request did not carry.
struct arrival {
  std::int64_t ms = 0;  // $msec (when nginx logged it, at the end of its answer), in ms
  int status = 0;
  std::string key;  // Idempotency-Key
  std::string traceparent;
  std::string api_key;     // X-Api-Key
  std::string shipment;    // X-Shipment: the record's Kafka key, forwarded as a record header
  std::string request_id;  // nginx's $request_id, also sent back as X-Request-Id
};

// Requests whose `header` matches `regex` (nginx's ~ syntax) are answered 503 until
// stop_refusing(): a partner that refuses some shipments for a while.
struct refusal {
  std::string header;  // as nginx names it: $http_x_shipment
  std::string regex;
};

class nginx_receiver {
 public:
  // `percent_503` of the requests (by the hash of nginx's random $request_id) are answered 503
  // at once; the records of `percent_400` of the Idempotency-Keys (by its hash: the same key
  // always) 400; the others 200 after `latency_ms` (the echo module's echo_sleep) when it is not
  // 0. Every answer carries X-Request-Id: $request_id.
  // Requests whose header matches `rejected` are answered 400 always, before any other rule: a
  // partner that dislikes some payloads whatever else happens.
  nginx_receiver(const std::filesystem::path& dir, int percent_503, int latency_ms = 0,
                 std::optional<refusal> refused = std::nullopt, int percent_400 = 0,
                 std::optional<refusal> rejected = std::nullopt)
      : dir_(dir / "nginx"),
        port_(free_port()),
        percent_503_(percent_503),
        percent_400_(percent_400),
        latency_ms_(latency_ms),
        refused_(std::move(refused)),
        rejected_(std::move(rejected)) {
    std::filesystem::create_directories(dir_);
    log_path_ = dir_ / "access.log";
    start();
  }

  // Stops nginx and starts it again on the same port and log without the refusal: requests in
  // between are refused a connection (courier retries them).
  void stop_refusing() {
    refused_.reset();
    process_.reset();
    start();
  }

  // Restarts nginx on the same port and log with `r`: an outage that begins.
  void start_refusing(refusal r) {
    refused_ = std::move(r);
    process_.reset();
    start();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/deliver"; }

  // Every request logged so far, in the log's order (nginx's order of finishing them). Reads
  // only what was appended since the last call; a line not finished yet waits for the next.
  const std::vector<arrival>& arrivals() {
    std::ifstream in{log_path_, std::ios::binary};
    in.seekg(static_cast<std::streamoff>(read_));
    std::string chunk{std::istreambuf_iterator<char>{in}, {}};
    const auto end = chunk.rfind('\n');
    if (end == std::string::npos) {
      return arrivals_;
    }
    read_ += end + 1;
    std::istringstream lines{chunk.substr(0, end + 1)};
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream fields{line};
      std::string msec;
      arrival a;
      fields >> msec >> a.status >> a.key >> a.traceparent >> a.api_key >> a.shipment >>
          a.request_id;
      const auto dot = msec.find('.');
      if (dot == std::string::npos || msec.size() != dot + 4) {
        throw std::runtime_error("nginx access log: unexpected $msec in '" + line + "'");
      }
      a.ms = std::stoll(msec.substr(0, dot)) * 1000 + std::stoll(msec.substr(dot + 1));
      arrivals_.push_back(std::move(a));
    }
    return arrivals_;
  }

 private:
  void start() {
    const auto conf = dir_ / "nginx.conf";
    const std::string d = dir_.string();
    std::ofstream{conf}
        << (latency_ms_ > 0 ? "load_module /usr/lib/nginx/modules/ngx_http_echo_module.so;\n" : "")
        << "daemon off;\nmaster_process off;\nworker_processes 1;\n"
        << "pid " << d << "/nginx.pid;\nerror_log " << d << "/error.log;\n"
        << "events { worker_connections 2048; }\nhttp {\n"
        << "  log_format partner '$msec $status $http_idempotency_key $http_traceparent "
           "$http_x_api_key $http_x_shipment $request_id';\n"
        << "  access_log " << log_path_.string() << " partner;\n"
        << "  client_body_temp_path " << d << "/body;\n  proxy_temp_path " << d << "/proxy;\n"
        << "  fastcgi_temp_path " << d << "/fastcgi;\n  uwsgi_temp_path " << d << "/uwsgi;\n"
        << "  scgi_temp_path " << d << "/scgi;\n"
        << "  keepalive_requests 1000000;\n  keepalive_timeout 75s;\n"
        // nginx refuses a 0% share: without 503s, every request is answered 200.
        << (percent_503_ > 0 ? "  split_clients \"${request_id}\" $answer {\n    " +
                                   std::to_string(percent_503_) + "% 503;\n    * 200;\n  }\n"
                             : std::string{"  map $request_id $answer { default 200; }\n"})
        << (percent_400_ > 0 ? "  split_clients \"${http_idempotency_key}\" $rejected {\n    " +
                                   std::to_string(percent_400_) + "% 1;\n    * 0;\n  }\n"
                             : std::string{"  map $request_id $rejected { default 0; }\n"})
        << (refused_ ? "  map " + refused_->header + " $refused {\n    default 0;\n    \"" +
                           refused_->regex + "\" 1;\n  }\n"
                     : std::string{"  map $request_id $refused { default 0; }\n"})
        << (rejected_
                ? "  map " + rejected_->header + " $rejected_always {\n    default 0;\n    \"" +
                      rejected_->regex + "\" 1;\n  }\n"
                : std::string{"  map $request_id $rejected_always { default 0; }\n"})
        << "  server {\n    listen 127.0.0.1:" << port_ << " backlog=1024;\n"
        << "    location = /deliver {\n      if ($rejected_always) { return 400; }\n"
        << "      if ($refused) { return 503; }\n"
        << "      add_header X-Request-Id $request_id always;\n"
        << "      if ($answer = 503) { return 503; }\n"
        << "      if ($rejected) { return 400; }\n"
        << (latency_ms_ > 0 ? "      echo_read_request_body;\n      echo_sleep " +
                                  seconds_of(latency_ms_) + ";\n      echo ok;\n"
                            : std::string{"      return 200 \"ok\\n\";\n"})
        << "    }\n  }\n}\n";
    process_ = std::make_unique<testing::child_process>(
        nginx_binary,
        std::vector<std::string>{"-c", conf.string(), "-p", d, "-e", d + "/error.log"},
        std::vector<std::string>{}, d + "/nginx.out");
    if (!testing::wait_until([&] { return listening(port_); }, std::chrono::seconds{10})) {
      throw std::runtime_error("nginx did not listen: " + process_->log());
    }
  }

  // "0.020": echo_sleep takes at most three decimals.
  static std::string seconds_of(int ms) {
    std::ostringstream out;
    out << ms / 1000 << "." << std::setw(3) << std::setfill('0') << ms % 1000;
    return out.str();
  }

  static std::uint16_t free_port() {
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::acceptor a{
        ioc, boost::asio::ip::tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), 0}};
    return a.local_endpoint().port();
  }

  static bool listening(std::uint16_t port) {
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::socket s{ioc};
    boost::system::error_code ec;
    s.connect(boost::asio::ip::tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), port}, ec);
    return !ec;
  }

  std::filesystem::path dir_;
  std::filesystem::path log_path_;
  std::uint16_t port_;
  int percent_503_;
  int percent_400_;
  int latency_ms_;
  std::optional<refusal> refused_;
  std::optional<refusal> rejected_;
  std::unique_ptr<testing::child_process> process_;
  std::size_t read_ = 0;
  std::vector<arrival> arrivals_;
};

}  // namespace courier::e2e
