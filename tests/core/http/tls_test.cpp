// https:// against the real mock_webhook serving TLS with certificates made in the test.

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/http/client.hpp"
#include "core/http/endpoint.hpp"
#include "core/http/io_runner.hpp"
#include "core/http/tls_context.hpp"
#include "mock_webhook/server.hpp"
#include "tests/core/http/scripted_server.hpp"
#include "tests/support/response_waiter.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_pki.hpp"

namespace courier::http {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::delivery;
using testing::post_and_wait;

class HttpsClient : public ::testing::Test {
 protected:
  courier::testing::temp_dir dir_{"tls"};
  courier::testing::test_pki pki_{dir_.path()};
  io_runner io_;

  // A mock webhook serving HTTPS with `cert`; `client_ca` set: it requires a client cert.
  std::unique_ptr<mock::server> partner(const courier::testing::pem_pair& cert,
                                        const std::string& client_ca = {}) {
    mock::server_settings s;
    s.tls_cert_file = cert.cert.string();
    s.tls_key_file = cert.key.string();
    s.tls_client_ca_file = client_ca;
    auto p = std::make_unique<mock::server>(s);
    p->start();
    return p;
  }

  client_settings trusting_the_test_ca() const {
    client_settings s;
    s.timeout = 5s;
    s.allow_private_targets = true;
    s.tls.ca_file = pki_.ca_file().string();
    return s;
  }

  std::string url_on(const std::string& host, const mock::server& p) const {
    return "https://" + host + ":" + std::to_string(p.port()) + "/deliver";
  }
};

TEST_F(HttpsClient, DeliversOverVerifiedTlsAndReusesTheConnection) {
  const auto p = partner(pki_.server());
  ASSERT_EQ(p->url().substr(0, 8), "https://");
  client c(io_.context(), parse_endpoint(p->url()), trusting_the_test_ca());
  for (int i = 0; i < 5; ++i) {
    const auto r =
        post_and_wait(c, delivery("{\"n\":" + std::to_string(i) + "}", "t:0:" + std::to_string(i)));
    ASSERT_EQ(r.status, 200) << r.error_message;
    EXPECT_EQ(r.reused_connection, i > 0);
  }
  EXPECT_EQ(c.connections_opened(), 1U);
  EXPECT_EQ(p->snapshot().ok, 5U);
}

TEST_F(HttpsClient, ReconnectsWhenTheServerDroppedAKeptAliveTlsConnection) {
  const auto p = partner(pki_.server());
  client c(io_.context(), parse_endpoint(p->url()), trusting_the_test_ca());
  ASSERT_EQ(post_and_wait(c, delivery("{}", "k1")).status, 200);
  // Every socket closes without a close_notify; the port stays the same.
  p->stop();
  p->start();
  const auto r = post_and_wait(c, delivery("{}", "k2"));
  EXPECT_EQ(r.status, 200) << r.error_message;
  EXPECT_EQ(c.connections_opened(), 2U);
}

// Two answers to one request, each its own TLS record, written in one TCP segment (corked):
// the client reads both from the socket in one go and OpenSSL decrypts only the first, so the
// second waits inside the TLS layer, where neither the connection's buffer nor the kernel's
// count (FIONREAD) shows it. Then one plain answer on a second connection.
TEST_F(HttpsClient, AnAnswerNobodyAskedForInsideTheTlsLayerIsNotTheNextAnswer) {
  namespace ssl = boost::asio::ssl;
  using tcp = boost::asio::ip::tcp;
  ssl::context tls(ssl::context::tls_server);
  const auto cert = pki_.server();
  tls.use_certificate_chain_file(cert.cert.string());
  tls.use_private_key_file(cert.key.string(), ssl::context::pem);
  std::atomic<int> served{0};
  testing::scripted_server server(2, [&](tcp::socket& socket) {
    ssl::stream<tcp::socket&> s(socket, tls);
    boost::system::error_code ec;
    s.handshake(ssl::stream_base::server, ec);
    boost::beast::flat_buffer buffer;
    boost::beast::http::request<boost::beast::http::string_body> req;
    boost::beast::http::read(s, buffer, req, ec);
    const auto answer = [&](const std::string& bytes) {
      boost::asio::write(s, boost::asio::buffer(bytes), ec);
    };
    if (served++ == 0) {
      int cork = 1;
      setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_CORK, &cork, sizeof cork);
      answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
      answer("HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n");
      cork = 0;
      setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_CORK, &cork, sizeof cork);
    } else {
      answer("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n");
    }
    boost::beast::http::read(s, buffer, req, ec);  // until the client closes this connection
  });
  auto settings = trusting_the_test_ca();
  settings.idle_check_after = std::chrono::hours(1);  // the kernel is not asked: this is OpenSSL
  client c(io_.context(),
           parse_endpoint("https://localhost:" + std::to_string(server.port()) + "/hook"),
           settings);
  ASSERT_EQ(post_and_wait(c, delivery("{}", "k1")).status, 200);
  const auto second = post_and_wait(c, delivery("{}", "k2"));
  EXPECT_EQ(second.status, 202) << second.error_message;
  EXPECT_FALSE(second.reused_connection);
  EXPECT_EQ(c.connections_opened(), 2U);
}

TEST_F(HttpsClient, VerifiesTheHostNameAsSentInSni) {
  const auto p = partner(pki_.server());
  client c(io_.context(), parse_endpoint(url_on("localhost", *p)), trusting_the_test_ca());
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.status, 200) << r.error_message;
}

TEST_F(HttpsClient, AnUnknownCaEndsAsTlsNamingTheReason) {
  const auto p = partner(pki_.unknown_ca_server());
  client c(io_.context(), parse_endpoint(p->url()), trusting_the_test_ca());
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.error, transport_error::tls) << r.error_message;
  EXPECT_THAT(r.error_message, HasSubstr("self-signed certificate"));
  EXPECT_EQ(p->snapshot().total, 0U);
}

TEST_F(HttpsClient, TheSystemStoreDoesNotTrustTheTestCa) {
  const auto p = partner(pki_.server());
  auto s = trusting_the_test_ca();
  s.tls.ca_file.clear();
  client c(io_.context(), parse_endpoint(p->url()), s);
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::tls) << r.error_message;
  EXPECT_THAT(r.error_message, HasSubstr("unable to get local issuer certificate"));
}

TEST_F(HttpsClient, AHostNameMismatchEndsAsTls) {
  const auto p = partner(pki_.wrong_host_server());
  client by_name(io_.context(), parse_endpoint(url_on("localhost", *p)), trusting_the_test_ca());
  const auto named = post_and_wait(by_name, delivery("{}", "k"));
  EXPECT_EQ(named.error, transport_error::tls) << named.error_message;
  EXPECT_THAT(named.error_message, HasSubstr("hostname mismatch"));

  client by_ip(io_.context(), parse_endpoint(p->url()), trusting_the_test_ca());
  const auto ip = post_and_wait(by_ip, delivery("{}", "k"));
  EXPECT_EQ(ip.error, transport_error::tls) << ip.error_message;
  EXPECT_THAT(ip.error_message, HasSubstr("IP address mismatch"));
  EXPECT_EQ(p->snapshot().total, 0U);
}

TEST_F(HttpsClient, AnExpiredCertificateEndsAsTls) {
  const auto p = partner(pki_.expired_server());
  client c(io_.context(), parse_endpoint(p->url()), trusting_the_test_ca());
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::tls) << r.error_message;
  EXPECT_THAT(r.error_message, HasSubstr("certificate has expired"));
}

TEST_F(HttpsClient, APlainHttpServerIsNeverSpokenToInTheClear) {
  mock::server plain{mock::server_settings{}};
  plain.start();
  client c(io_.context(), parse_endpoint(url_on("127.0.0.1", plain)), trusting_the_test_ca());
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.error, transport_error::tls) << r.error_message;
  EXPECT_EQ(plain.snapshot().total, 0U);
}

TEST_F(HttpsClient, MutualTlsWorksWithTheClientCertificate) {
  const auto p = partner(pki_.server(), pki_.ca_file().string());
  const auto id = pki_.client();
  auto s = trusting_the_test_ca();
  s.tls.client_cert_file = id.cert.string();
  s.tls.client_key_file = id.key.string();
  client c(io_.context(), parse_endpoint(p->url()), s);
  for (int i = 0; i < 3; ++i) {
    const auto r = post_and_wait(c, delivery("{}", "k" + std::to_string(i)));
    EXPECT_EQ(r.status, 200) << r.error_message;
  }
  EXPECT_EQ(c.connections_opened(), 1U);
}

TEST_F(HttpsClient, MutualTlsWithoutTheClientCertificateEndsAsTls) {
  const auto p = partner(pki_.server(), pki_.ca_file().string());
  client c(io_.context(), parse_endpoint(p->url()), trusting_the_test_ca());
  const auto r = post_and_wait(c, delivery("{}", "k"));
  EXPECT_EQ(r.status, 0);
  // TLS 1.3: the server's refusal arrives as an alert after the client's handshake finished.
  EXPECT_EQ(r.error, transport_error::tls) << r.error_message;
  EXPECT_THAT(r.error_message, HasSubstr("certificate required"));
  EXPECT_EQ(p->snapshot().total, 0U);
}

TEST_F(HttpsClient, AClientKeyThatDoesNotMatchItsCertificateIsRefusedUpFront) {
  const auto id = pki_.client();
  const auto other = pki_.server();
  auto s = trusting_the_test_ca();
  s.tls.client_cert_file = id.cert.string();
  s.tls.client_key_file = other.key.string();
  try {
    client c(io_.context(), parse_endpoint("https://127.0.0.1:1/hook"), s);
    FAIL() << "a mismatched key was accepted";
  } catch (const tls_setup_error& e) {
    EXPECT_EQ(e.field(), "client_key_file");
    EXPECT_THAT(e.what(), HasSubstr("key values mismatch"));
  }
}

// A TLS file is an operator's input: a FIFO would hang start-up in OpenSSL's read, /dev/zero
// never end; both, and a file larger than any PEM file, are refused naming the field first.
TEST(TlsContext, AFifoADeviceOrAHugeFileIsRefusedBeforeOpenSslReadsIt) {
  const courier::testing::temp_dir dir{"tls-files"};
  const auto fifo = dir.path() / "ca.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto huge = dir.path() / "ca.pem";
  {
    std::ofstream out{huge, std::ios::binary};
    out << std::string(5 * 1024 * 1024, 'A');
  }
  const auto refused = [](tls_settings s) -> std::string {
    try {
      (void)make_tls_context(s);
    } catch (const tls_setup_error& e) {
      return e.field() + ": " + e.what();
    }
    return "accepted";
  };
  tls_settings fifo_ca;
  fifo_ca.ca_file = fifo.string();
  EXPECT_THAT(refused(fifo_ca),
              HasSubstr("ca_file: CA file '" + fifo.string() + "' is not a regular file"));
  tls_settings device_key;
  device_key.client_cert_file = huge.string();
  device_key.client_key_file = "/dev/zero";
  EXPECT_THAT(refused(device_key), HasSubstr("client_cert_file: client certificate '" +
                                             huge.string() + "' is larger than 4 MiB"));
  tls_settings huge_ca;
  huge_ca.ca_file = huge.string();
  EXPECT_THAT(refused(huge_ca), HasSubstr("is larger than 4 MiB"));
  const auto small = dir.path() / "client.pem";
  std::ofstream{small} << "not a certificate";
  device_key.client_cert_file = small.string();
  EXPECT_THAT(refused(device_key),
              HasSubstr("client_key_file: client key '/dev/zero' is not a regular file"));
}

}  // namespace
}  // namespace courier::http
