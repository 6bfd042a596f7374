#include <csignal>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "mock_webhook/server.hpp"

namespace {

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    return std::nullopt;
  }
  return std::string(value);
}

double env_rate(const char* name, double fallback) {
  const auto text = env(name);
  if (!text) {
    return fallback;
  }
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text->size()) {
    throw std::invalid_argument(std::string(name) + "='" + *text + "' is not a number");
  }
  return value;
}

long long env_integer(const char* name, long long fallback) {
  const auto text = env(name);
  if (!text) {
    return fallback;
  }
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text->size()) {
    throw std::invalid_argument(std::string(name) + "='" + *text + "' is not an integer");
  }
  return value;
}

int run(int argc, char** argv) {
  courier::mock::server_settings settings;
  long long port = 8090;
  try {
    // The environment is the default (docker compose); flags win over it.
    port = env_integer("PORT", port);
    settings.initial.fail_rate_503 = env_rate("FAIL_RATE_503", 0);
    settings.initial.fail_rate_timeout = env_rate("FAIL_RATE_TIMEOUT", 0);
    settings.initial.fail_rate_400 = env_rate("FAIL_RATE_400", 0);
    settings.initial.latency = std::chrono::milliseconds(env_integer("LATENCY_MS", 0));
    settings.hmac_secret = env("HMAC_SECRET");
    // whsec_ secrets separated by spaces: the partner accepts a signature by any of them.
    if (const auto secrets = env("STANDARD_WEBHOOKS_SECRETS")) {
      std::istringstream words{*secrets};
      for (std::string w; words >> w;) {
        settings.standard_webhooks.secrets.push_back(w);
      }
    }
  } catch (const std::invalid_argument& e) {
    std::cerr << "mock_webhook: " << e.what() << '\n';
    return 2;
  }

  CLI::App app{"mock_webhook: a webhook receiver with chaos modes, for testing courier"};
  app.add_option("--port", port, "TCP port (env PORT, 0 = ephemeral)")->check(CLI::Range(0, 65535));
  app.add_option("--address", settings.address, "address to listen on");
  app.add_option("--threads", settings.threads, "io threads")->check(CLI::Range(1U, 64U));
  app.add_option("--seed", settings.seed, "seed of the chaos random source");
  app.add_option("--tls-cert", settings.tls_cert_file,
                 "serve HTTPS with this PEM certificate (chain); needs --tls-key")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-key", settings.tls_key_file, "PEM private key of --tls-cert")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-client-ca", settings.tls_client_ca_file,
                 "with TLS: require a client certificate issued by this PEM CA (mTLS)")
      ->check(CLI::ExistingFile);
  CLI11_PARSE(app, argc, argv);
  if (settings.tls_cert_file.empty() != settings.tls_key_file.empty()) {
    std::cerr << "mock_webhook: --tls-cert and --tls-key go together\n";
    return 2;
  }
  settings.port = static_cast<std::uint16_t>(port);

  try {
    courier::mock::server srv(settings);
    srv.start();
    const bool tls = !settings.tls_cert_file.empty();
    std::cout << "mock_webhook listening on " << (tls ? "https://" : "http://") << settings.address
              << ":" << srv.port() << std::endl;

    boost::asio::io_context signals_context;
    boost::asio::signal_set signals(signals_context, SIGINT, SIGTERM);
    signals.async_wait([](const boost::system::error_code&, int) {});
    signals_context.run();  // returns once a signal arrived
    srv.stop();
  } catch (const std::exception& e) {
    std::cerr << "mock_webhook: " << e.what() << '\n';
    return 2;
  }
  return 0;
}

}  // namespace

// Whatever escapes (CLI11 setup, the server or the scenario) is reported, not std::terminate.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "mock_webhook: " << e.what() << '\n';
    return 2;
  }
}
