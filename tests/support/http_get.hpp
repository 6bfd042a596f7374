#pragma once

// A plain blocking GET over loopback, for the admin endpoints (/metrics, /state, ...): the
// courier HTTP client only POSTs.

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
};

inline got http_get(std::uint16_t port, const std::string& target) {
  namespace beast_http = boost::beast::http;
  boost::asio::io_context ioc;
  boost::beast::tcp_stream stream{ioc};
  stream.expires_after(std::chrono::seconds{5});
  stream.connect(boost::asio::ip::tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), port});
  beast_http::request<beast_http::empty_body> req{beast_http::verb::get, target, 11};
  req.set(beast_http::field::host, "127.0.0.1");
  beast_http::write(stream, req);
  boost::beast::flat_buffer buffer;
  beast_http::response<beast_http::string_body> res;
  beast_http::read(stream, buffer, res);
  return {static_cast<int>(res.result_int()), std::string{res[beast_http::field::content_type]},
          res.body()};
}

}  // namespace courier::testing
