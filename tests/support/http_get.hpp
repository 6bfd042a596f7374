#pragma once

// A plain blocking GET (or POST) over loopback, for the admin endpoints (/metrics, /state,
// /routes/<name>/pause, ...): the courier HTTP client only POSTs webhooks.

#include <chrono>
#include <cstdint>
#include <string>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

namespace courier::testing {

struct got {
  int status = 0;
  std::string content_type;
  std::string body;
  std::string www_authenticate{};
};

// `authorization`: the Authorization header's value; empty: none is sent.
inline got http_request(std::uint16_t port, boost::beast::http::verb method,
                        const std::string& target, const std::string& authorization = {}) {
  namespace beast_http = boost::beast::http;
  boost::asio::io_context ioc;
  boost::beast::tcp_stream stream{ioc};
  stream.expires_after(std::chrono::seconds{10});
  stream.connect(boost::asio::ip::tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), port});
  beast_http::request<beast_http::empty_body> req{method, target, 11};
  req.set(beast_http::field::host, "127.0.0.1");
  if (!authorization.empty()) {
    req.set(beast_http::field::authorization, authorization);
  }
  req.prepare_payload();
  beast_http::write(stream, req);
  boost::beast::flat_buffer buffer;
  beast_http::response<beast_http::string_body> res;
  beast_http::read(stream, buffer, res);
  return {static_cast<int>(res.result_int()), std::string{res[beast_http::field::content_type]},
          res.body(), std::string{res[beast_http::field::www_authenticate]}};
}

inline got http_get(std::uint16_t port, const std::string& target) {
  return http_request(port, boost::beast::http::verb::get, target);
}

inline got http_post(std::uint16_t port, const std::string& target,
                     const std::string& authorization = {}) {
  return http_request(port, boost::beast::http::verb::post, target, authorization);
}

}  // namespace courier::testing
