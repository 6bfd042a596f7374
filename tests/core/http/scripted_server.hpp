#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

namespace courier::http::testing {

// A raw loopback server for answers the real mock never gives (garbage, early close,
// redirects, huge bodies). One thread accepts up to `connections` connections one after
// another and hands each to `on_connection`, which talks to the socket with blocking calls.
class scripted_server {
 public:
  using tcp = boost::asio::ip::tcp;
  using handler = std::function<void(tcp::socket&)>;

  scripted_server(std::size_t connections, handler on_connection)
      : acceptor_(ioc_, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)),
        on_connection_(std::move(on_connection)) {
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this, connections] { serve(connections); });
  }

  ~scripted_server() {
    stopping_ = true;
    if (!done_) {
      // Wakes a blocking accept(); serve() sees stopping_ and leaves.
      boost::asio::io_context ioc;
      tcp::socket poke(ioc);
      boost::system::error_code ignored;
      poke.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port_), ignored);
    }
    thread_.join();
  }

  scripted_server(const scripted_server&) = delete;
  scripted_server& operator=(const scripted_server&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url(const std::string& target = "/hook") const {
    return "http://127.0.0.1:" + std::to_string(port_) + target;
  }
  std::size_t accepted() const { return accepted_; }

  // True once every connection was served; what the handlers wrote is then visible.
  bool finished_within(std::chrono::milliseconds deadline) {
    return finished_.wait_for(deadline) == std::future_status::ready;
  }

  // Helpers for handlers; errors end up as an empty/partial result, never an exception.
  static boost::beast::http::request<boost::beast::http::string_body> read_request(tcp::socket& s) {
    boost::beast::flat_buffer buffer;
    boost::beast::http::request<boost::beast::http::string_body> req;
    boost::system::error_code ec;
    boost::beast::http::read(s, buffer, req, ec);
    return req;
  }
  static void write_raw(tcp::socket& s, const std::string& bytes) {
    boost::system::error_code ec;
    boost::asio::write(s, boost::asio::buffer(bytes), ec);
  }

 private:
  void serve(std::size_t connections) {
    for (std::size_t i = 0; i < connections && !stopping_; ++i) {
      tcp::socket socket(ioc_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stopping_) {
        break;
      }
      ++accepted_;
      try {
        on_connection_(socket);
      } catch (const std::exception&) {
        // A failing script shows up as a failed expectation in the test thread.
      }
    }
    done_ = true;
    finished_promise_.set_value();
  }

  boost::asio::io_context ioc_;
  tcp::acceptor acceptor_;
  handler on_connection_;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> done_{false};
  std::atomic<std::size_t> accepted_{0};
  std::promise<void> finished_promise_;
  std::shared_future<void> finished_ = finished_promise_.get_future().share();
  std::thread thread_;
};

}  // namespace courier::http::testing
