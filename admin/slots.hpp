#pragma once

// Who may hold one of the admin listener's connection slots. Pure bookkeeping, no sockets: it
// decides, the listener carries out (closes an evicted connection, answers 503 to a refused one).
//
// The rules, in order, for a new connection from `peer` (its remote address):
// - a peer at its own cap (per_peer) takes the place of its own oldest idle connection, and is
//   refused when every connection of that peer is busy;
// - with every slot taken (total), it takes the place of the oldest idle connection of anyone,
//   and is refused when every slot is busy.
// Idle means between two requests on a kept-alive connection; a new connection is busy until
// its first answer is written, so a flood of new connections cannot push out one another's
// first requests. A stranger can therefore hold at most per_peer slots, and idle connections
// never keep a probe out.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace courier::admin {

struct admin_slot_limits {
  std::size_t total = 64;
  std::size_t per_peer = 8;
};

using admin_slot_id = std::uint64_t;

struct admission {
  enum class verdict {
    admitted,
    peer_busy,  // the peer holds per_peer connections, each mid-request
    all_busy,   // every slot is held by a connection mid-request
  };
  verdict what = verdict::admitted;
  admin_slot_id slot = 0;                // admitted: the new connection's slot
  std::optional<admin_slot_id> evicted;  // admitted in the place of this idle connection
};

// What the slots decided so far, for the listener's log lines.
struct admin_slot_counts {
  std::uint64_t admitted = 0;
  std::uint64_t evicted = 0;
  std::uint64_t refused_peer_busy = 0;
  std::uint64_t refused_all_busy = 0;
};

class admin_slots {
 public:
  explicit admin_slots(admin_slot_limits limits = {});

  // -- connection lifecycle ---

  // A new connection from `peer`. An evicted slot is already released here: the listener only
  // closes its connection.
  admission admit(const std::string& peer);
  // The connection's answer went out and it waits for the next request.
  void idle(admin_slot_id slot);
  // A request started arriving on an idle connection.
  void busy(admin_slot_id slot);
  // The connection closed. A slot released before (evicted) is ignored.
  void release(admin_slot_id slot);

  // -- state ---

  [[nodiscard]] std::size_t open() const { return slots_.size(); }
  [[nodiscard]] std::size_t open_from(const std::string& peer) const;
  [[nodiscard]] bool is_idle(admin_slot_id slot) const;
  [[nodiscard]] const admin_slot_limits& limits() const { return limits_; }
  [[nodiscard]] const admin_slot_counts& counts() const { return counts_; }

 private:
  struct held {
    std::string peer;
    bool idle = false;
    std::uint64_t idle_since = 0;  // a tick of idle(): the smallest is the oldest idle
  };

  // The connection idle the longest, of `peer` only when given.
  [[nodiscard]] std::optional<admin_slot_id> oldest_idle(const std::string* peer) const;
  admission take(const std::string& peer, std::optional<admin_slot_id> evicted);

  admin_slot_limits limits_;
  std::map<admin_slot_id, held> slots_;
  std::map<std::string, std::size_t> per_peer_;
  admin_slot_id next_slot_ = 1;
  std::uint64_t tick_ = 0;
  admin_slot_counts counts_;
};

}  // namespace courier::admin
