#include "core/routing/endpoint_fanout.hpp"

#include <algorithm>
#include <utility>

namespace courier::routing {
namespace {

// Sets the header to `value`, replacing every copy the record carried.
void set_endpoint(header_list& headers, const std::string& value) {
  headers.erase(std::remove_if(headers.begin(), headers.end(),
                               [](const header& h) { return h.first == endpoint_header; }),
                headers.end());
  headers.emplace_back(std::string{endpoint_header}, value);
}

// Which of two ends a joined record reports: a dead-lettered copy outweighs a moved one, which
// outweighs a delivered one.
int weight(delivery_end e) {
  switch (e) {
    case delivery_end::filtered:
      return 0;
    case delivery_end::delivered:
      return 1;
    case delivery_end::retried:
      return 2;
    case delivery_end::dead_lettered:
      return 3;
  }
  return 3;
}

}  // namespace

endpoint_fanout::endpoint_fanout(endpoint_routing routing, std::string source_topic, bool receipts)
    : routing_(std::move(routing)), source_topic_(std::move(source_topic)), receipts_(receipts) {}

routing_decision endpoints_for(const endpoint_routing& routing, const record& r,
                               std::string_view source_topic) {
  const auto named = find_header(r.headers, endpoint_header);
  if (named && r.topic != source_topic) {
    // A retry tier's copy: courier wrote the name, and it alone decides.
    routing_decision d;
    if (const auto i = routing.index_of(*named)) {
      d.endpoints.push_back(*i);
    } else {
      d.unknown = std::string{*named};
    }
    return d;
  }
  routing_decision d = routing.route(r);
  if (named && !d.unknown) {
    // On the source, the name only narrows what the route chose.
    const auto i = routing.index_of(*named);
    const bool chosen =
        i && std::find(d.endpoints.begin(), d.endpoints.end(), *i) != d.endpoints.end();
    d.endpoints.clear();
    if (chosen) {
      d.endpoints.push_back(*i);
    }
  }
  return d;
}

void endpoint_fanout::expect(const record_position& at, std::size_t copies) {
  auto& j = pending_[at];
  if (j.waiting == 0) {
    j.joined = delivery_outcome{at, delivery_end::filtered, 0, 0, {}};
  }
  // A record fetched again while its earlier copies are out (a revoke and a re-assignment):
  // its outcome waits for both.
  j.waiting += copies;
  j.answering += copies;
}

void endpoint_fanout::send(record r, const std::vector<std::size_t>& to, dispatch& out) {
  expect(r.position(), to.size());
  // Every endpoint but the last gets a copy (the value is shared, not copied); the last the
  // record itself.
  for (std::size_t n = 0; n + 1 < to.size(); ++n) {
    record copy = r;
    set_endpoint(copy.headers, routing_.rules()[to[n]].name);
    out.deliver[to[n]].push_back(std::move(copy));
  }
  set_endpoint(r.headers, routing_.rules()[to.back()].name);
  out.deliver[to.back()].push_back(std::move(r));
}

endpoint_fanout::dispatch endpoint_fanout::on_records(std::vector<record> records) {
  dispatch out;
  out.deliver.resize(endpoints());
  for (auto& r : records) {
    auto d = endpoints_for(routing_, r, source_topic_);
    if (d.unknown) {
      switch (routing_.on_unknown()) {
        case unknown_endpoint_action::dead_letter:
          expect(r.position(), 1);
          out.dead_letter.push_back(std::move(r));
          continue;
        case unknown_endpoint_action::skip:
          break;
      }
    }
    if (d.endpoints.empty()) {
      out.done.push_back(delivery_outcome{r.position(), delivery_end::filtered, 0, 0, {}});
      continue;
    }
    send(std::move(r), d.endpoints, out);
  }
  return out;
}

std::optional<delivery_outcome> endpoint_fanout::on_outcome(const delivery_outcome& o) {
  const auto it = pending_.find(o.record);
  if (it == pending_.end()) {
    return std::nullopt;
  }
  auto& j = it->second;
  j.joined.attempts += o.attempts;
  if (weight(o.end) >= weight(j.joined.end)) {
    j.joined.end = o.end;
    j.joined.status = o.status;
    j.joined.error_class = o.error_class;
  }
  if (--j.waiting > 0) {
    // A delivered copy of a route with receipts was answered before (on_answered).
    if (!(receipts_ && o.end == delivery_end::delivered)) {
      answered(o.record, j);
    }
    return std::nullopt;
  }
  auto joined = std::move(j.joined);
  pending_.erase(it);
  return joined;
}

void endpoint_fanout::on_answered(const record_position& at) {
  const auto it = pending_.find(at);
  if (it != pending_.end()) {
    answered(at, it->second);
  }
}

void endpoint_fanout::answered(const record_position& at, join& j) {
  if (j.answering == 0) {
    return;
  }
  if (--j.answering == 0 && !j.told) {
    j.told = true;
    answered_.push_back(at);
  }
}

std::vector<record_position> endpoint_fanout::take_answered() {
  std::vector<record_position> out;
  out.swap(answered_);
  return out;
}

}  // namespace courier::routing
