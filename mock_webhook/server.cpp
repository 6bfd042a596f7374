#include "mock_webhook/server.hpp"

#include <stdexcept>
#include <utility>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "mock_webhook/listener.hpp"

namespace courier::mock {

server::server(server_settings settings)
    : settings_(std::move(settings)),
      state_(std::make_shared<partner_state>(settings_.hmac_secret, settings_.initial,
                                             settings_.seed, settings_.standard_webhooks)),
      routes_(std::make_shared<router>(state_)),
      port_(settings_.port) {}

server::~server() { stop(); }

void server::start() {
  if (runner_) {
    throw std::logic_error("mock webhook server already started");
  }
  const auto address = boost::asio::ip::make_address(settings_.address);
  auto runner = std::make_unique<courier::http::io_runner>(settings_.threads);
  auto accepting =
      std::make_shared<listener>(runner->context(), boost::asio::ip::tcp::endpoint(address, port_),
                                 routes_, settings_.hang_for);
  port_ = accepting->port();
  accepting->run();
  runner_ = std::move(runner);
}

void server::stop() { runner_.reset(); }

std::string server::url() const {
  const bool v6 = settings_.address.find(':') != std::string::npos;
  const std::string host = v6 ? "[" + settings_.address + "]" : settings_.address;
  return "http://" + host + ":" + std::to_string(port_) + "/deliver";
}

}  // namespace courier::mock
