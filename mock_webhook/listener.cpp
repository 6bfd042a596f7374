#include "mock_webhook/listener.hpp"

#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>

#include "mock_webhook/session.hpp"

namespace courier::mock {

namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;

listener::listener(net::io_context& ioc, const tcp::endpoint& where, std::shared_ptr<router> routes,
                   std::chrono::milliseconds hang_for, std::shared_ptr<net::ssl::context> tls)
    : ioc_(ioc),
      acceptor_(net::make_strand(ioc)),
      routes_(std::move(routes)),
      hang_for_(hang_for),
      tls_(std::move(tls)) {
  acceptor_.open(where.protocol());
  // A restarted mock must get its port back while old connections sit in TIME_WAIT.
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(where);
  acceptor_.listen(net::socket_base::max_listen_connections);
  port_ = acceptor_.local_endpoint().port();
}

void listener::run() {
  net::dispatch(acceptor_.get_executor(),
                boost::beast::bind_front_handler(&listener::accept, shared_from_this()));
}

void listener::accept() {
  acceptor_.async_accept(net::make_strand(ioc_), boost::beast::bind_front_handler(
                                                     &listener::on_accept, shared_from_this()));
}

void listener::on_accept(boost::beast::error_code ec, tcp::socket socket) {
  if (ec == net::error::operation_aborted) {
    return;  // closed: the server is stopping
  }
  if (!ec) {
    std::make_shared<session>(std::move(socket), routes_, hang_for_, tls_.get())->run();
  }
  // A failed accept (e.g. out of descriptors) loses that one connection, not the listener.
  accept();
}

}  // namespace courier::mock
