// https:// against an independent TLS server: Debian's nginx on loopback with the test
// certificates (tools/bench/lib.sh starts it the same way for the benchmarks).

#include <chrono>
#include <fstream>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/http/client.hpp"
#include "core/http/endpoint.hpp"
#include "core/http/io_runner.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/response_waiter.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_pki.hpp"
#include "tests/support/wait_until.hpp"

namespace courier::http {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::delivery;
using testing::post_and_wait;
using tcp = boost::asio::ip::tcp;

std::uint16_t free_port() {
  boost::asio::io_context ioc;
  tcp::acceptor a{ioc, tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), 0}};
  return a.local_endpoint().port();
}

bool listening(std::uint16_t port) {
  boost::asio::io_context ioc;
  tcp::socket s{ioc};
  boost::system::error_code ec;
  s.connect(tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), port}, ec);
  return !ec;
}

// nginx in the foreground, one process: killing it leaves no worker behind. Two servers: one
// plain TLS, one that requires a client certificate from the test CA.
class nginx_tls {
 public:
  nginx_tls(const std::filesystem::path& dir, const courier::testing::pem_pair& cert,
            const std::filesystem::path& client_ca)
      : port_(free_port()), mtls_port_(free_port()) {
    const auto conf = dir / "nginx.conf";
    std::ofstream{conf} << "daemon off;\nmaster_process off;\nworker_processes 1;\n"
                        << "pid " << (dir / "nginx.pid").string() << ";\n"
                        << "error_log " << (dir / "error.log").string() << ";\n"
                        << "events { worker_connections 64; }\nhttp {\n"
                        << "  access_log " << (dir / "access.log").string() << ";\n"
                        << "  client_body_temp_path " << dir.string() << ";\n"
                        << "  ssl_certificate " << cert.cert.string() << ";\n"
                        << "  ssl_certificate_key " << cert.key.string() << ";\n"
                        << "  ssl_protocols TLSv1.2 TLSv1.3;\n"
                        << "  keepalive_requests 1000;\n"
                        << "  server {\n    listen 127.0.0.1:" << port_ << " ssl;\n"
                        << "    location = /deliver { return 200 \"ok\\n\"; }\n  }\n"
                        << "  server {\n    listen 127.0.0.1:" << mtls_port_ << " ssl;\n"
                        << "    ssl_client_certificate " << client_ca.string() << ";\n"
                        << "    ssl_verify_client on;\n"
                        << "    location = /deliver { return 200 \"ok\\n\"; }\n  }\n}\n";
    process_ = std::make_unique<courier::testing::child_process>(
        "/usr/sbin/nginx",
        std::vector<std::string>{"-c", conf.string(), "-p", dir.string(), "-e",
                                 (dir / "error.log").string()},
        std::vector<std::string>{}, (dir / "nginx.out").string());
    if (!courier::testing::wait_until([&] { return listening(port_) && listening(mtls_port_); },
                                      10s)) {
      throw std::runtime_error("nginx did not listen: " + process_->log());
    }
  }

  std::string url(bool mtls = false) const {
    return "https://127.0.0.1:" + std::to_string(mtls ? mtls_port_ : port_) + "/deliver";
  }

 private:
  std::uint16_t port_;
  std::uint16_t mtls_port_;
  std::unique_ptr<courier::testing::child_process> process_;
};

class NginxTls : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists("/usr/sbin/nginx")) {
      GTEST_SKIP() << "nginx is not installed (make deps)";
    }
    server_ = std::make_unique<nginx_tls>(dir_.path(), pki_.server(), pki_.ca_file());
  }

  client_settings trusting_the_test_ca() const {
    client_settings s;
    s.timeout = 5s;
    s.allow_private_targets = true;
    s.tls.ca_file = pki_.ca_file().string();
    return s;
  }

  courier::testing::temp_dir dir_{"nginx-tls", courier::testing::temp_dir::keep_if_failed};
  courier::testing::test_pki pki_{dir_.path()};
  io_runner io_;
  std::unique_ptr<nginx_tls> server_;
};

TEST_F(NginxTls, DeliversToNginxOverVerifiedTlsOnOneKeptAliveConnection) {
  client c(io_.context(), parse_endpoint(server_->url()), trusting_the_test_ca());
  for (int i = 0; i < 5; ++i) {
    const auto r = post_and_wait(c, delivery("{\"n\":1}", "t:0:" + std::to_string(i)));
    ASSERT_EQ(r.status, 200) << r.error_message;
    EXPECT_EQ(r.body, "ok\n");
    EXPECT_EQ(r.reused_connection, i > 0);
  }
  EXPECT_EQ(c.connections_opened(), 1U);
}

TEST_F(NginxTls, RefusesNginxsCertificateWithoutTheTestCa) {
  auto s = trusting_the_test_ca();
  s.tls.ca_file.clear();  // the system's store
  client c(io_.context(), parse_endpoint(server_->url()), s);
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::tls) << r.error_message;
  EXPECT_THAT(r.error_message, HasSubstr("unable to get local issuer certificate"));
}

TEST_F(NginxTls, PresentsTheClientCertificateNginxRequires) {
  const auto id = pki_.client();
  auto s = trusting_the_test_ca();
  s.tls.client_cert_file = id.cert.string();
  s.tls.client_key_file = id.key.string();
  client c(io_.context(), parse_endpoint(server_->url(/*mtls=*/true)), s);
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.status, 200) << r.error_message;

  // nginx does not fail the handshake without one: it answers 400 ("No required SSL certificate
  // was sent"), which courier takes as the receiver's answer.
  client without(io_.context(), parse_endpoint(server_->url(/*mtls=*/true)),
                 trusting_the_test_ca());
  const auto refused = post_and_wait(without, delivery("{}", "k"));
  EXPECT_EQ(refused.status, 400) << refused.error_message;
}

}  // namespace
}  // namespace courier::http
