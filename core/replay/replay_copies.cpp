#include "core/replay/replay_copies.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "core/crypto/sha256.hpp"
#include "core/model/idempotency_key.hpp"
#include "core/retry/provenance.hpp"
#include "core/retry/retry_headers.hpp"

namespace courier::replay {
namespace {

void add(header_list& to, std::string_view name, std::string value) {
  to.emplace_back(std::string{name}, std::move(value));
}

// The copy's headers: the record's own without courier's provenance, then the tier record's.
header_list copy_headers(const record& source, const replay_target& target,
                         const std::string& endpoint, std::string_view id, std::int64_t now_ms) {
  header_list h = source.headers;
  drop_untrusted_provenance(h);
  for (const auto name : {idempotency_key_header, endpoint_header, replay_id_header}) {
    h.erase(std::remove_if(h.begin(), h.end(), [&](const header& x) { return x.first == name; }),
            h.end());
  }
  add(h, idempotency_key_header, idempotency_key_for(source));
  add(h, route_header, target.route);
  add(h, origin_topic_header, source.topic);
  add(h, origin_partition_header, std::to_string(source.partition));
  add(h, origin_offset_header, std::to_string(source.offset));
  add(h, origin_timestamp_header, std::to_string(source.timestamp_ms));
  add(h, attempts_header, "0");
  add(h, retry_tier_header, "0");
  add(h, retry_due_header, std::to_string(now_ms));
  add(h, replay_id_header, std::string{id});
  if (target.several_endpoints) {
    add(h, endpoint_header, endpoint);
  }
  return h;
}

}  // namespace

std::string replay_id(const replay_range& r) {
  const std::string described = r.route + "\n" + r.endpoint.value_or("*") + "\n" +
                                std::to_string(r.since_ms) + "\n" +
                                (r.until_ms ? std::to_string(*r.until_ms) : std::string{"end"});
  return "replay-" + sha256_hex(described).substr(0, 16);
}

std::string ledger_key(std::string_view id, const record_position& at, std::string_view endpoint) {
  return std::string{id} + "/" + to_string(at) + "/" + std::string{endpoint};
}

std::vector<replay_copy> copies_of(const record& source, const routing::endpoint_routing& routing,
                                   const replay_target& target,
                                   const std::optional<std::string>& endpoint, std::string_view id,
                                   std::int64_t now_ms) {
  if (target.topics.tiers.empty()) {
    throw std::invalid_argument{"route " + target.route +
                                " has no retry tier: replay writes its copies to the first"};
  }
  std::vector<replay_copy> out;
  const auto decision = routing.route(source);
  for (const auto i : decision.endpoints) {
    const auto& name = routing.rules()[i].name;
    if (endpoint && *endpoint != name) {
      continue;
    }
    replay_copy c;
    c.endpoint = name;
    c.ledger_key = ledger_key(id, source.position(), name);
    c.produce.topic = target.topics.tiers.front().topic;
    c.produce.partition = source.partition;
    c.produce.key = source.key;
    c.produce.value = source.value;
    c.produce.headers = copy_headers(source, target, name, id, now_ms);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace courier::replay
