#pragma once

#include <map>
#include <string>
#include <utility>

namespace courier::kafka {

// Where a one-off admin request (metadata, topic configs, committed offsets) goes: the bootstrap
// servers and the connection properties (security protocol, SASL, SSL, sockets) that courier's
// consumers and producers use with them, so the start-up checks reach a secured cluster as the
// clients will. A string is the bootstrap servers alone (a plaintext cluster, the tests).
struct cluster {
  cluster(std::string bootstrap_servers)  // NOLINT(google-explicit-constructor): a plain address
      : bootstrap(std::move(bootstrap_servers)) {}
  cluster(const char* bootstrap_servers)  // NOLINT(google-explicit-constructor): as above
      : bootstrap(bootstrap_servers) {}
  cluster(std::string bootstrap_servers, std::map<std::string, std::string> connection_properties)
      : bootstrap(std::move(bootstrap_servers)), connection(std::move(connection_properties)) {}

  // The properties of an admin handle of this cluster: the connection ones with
  // bootstrap.servers, and `own` (what the request itself needs) over them.
  [[nodiscard]] std::map<std::string, std::string> handle_properties(
      const std::map<std::string, std::string>& own = {}) const;

  std::string bootstrap;
  std::map<std::string, std::string> connection;
};

// The entries of a client's properties that say how to connect (security.protocol, sasl.*,
// ssl.*, socket.*, client.id, ...), for a handle that is neither that consumer nor that
// producer; the rest (fetch, commit, produce settings) stays with the clients.
std::map<std::string, std::string> connection_properties(
    const std::map<std::string, std::string>& client_properties);

}  // namespace courier::kafka
