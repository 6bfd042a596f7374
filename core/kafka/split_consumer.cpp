#include "core/kafka/split_consumer.hpp"

#include "core/kafka/error.hpp"

#include <algorithm>
#include <exception>
#include <iterator>
#include <stdexcept>
#include <utility>

namespace courier::kafka {

split_consumer::split_consumer(const consumer_settings& s,
                               const std::vector<std::vector<std::string>>& subscriptions,
                               consumer::callbacks cb)
    : cb_(std::move(cb)), broker_up_(subscriptions.size(), true) {
  if (subscriptions.empty()) {
    throw std::invalid_argument("a split consumer needs at least one subscription");
  }
  for (std::size_t i = 0; i < subscriptions.size(); ++i) {
    if (subscriptions[i].empty()) {
      throw std::invalid_argument("subscription " + std::to_string(i) + " names no topic");
    }
    for (const auto& topic : subscriptions[i]) {
      if (!member_of_topic_.emplace(topic, i).second) {
        throw std::invalid_argument("topic '" + topic + "' is in two subscriptions");
      }
    }
  }
  members_.reserve(subscriptions.size());
  for (std::size_t i = 0; i < subscriptions.size(); ++i) {
    consumer_settings member = s;
    member.topics = subscriptions[i];
    member.separate_member_topics.clear();
    if (const auto it = member.extra.find("group.instance.id"); it != member.extra.end() && i > 0) {
      it->second += "-" + std::to_string(i);
    }
    consumer::callbacks mine = cb_;
    if (cb_.on_broker_up) {
      mine.on_broker_up = [this, i](bool up) { broker_up(i, up); };
    }
    members_.push_back(std::make_unique<consumer>(member, std::move(mine)));
  }
}

std::size_t split_consumer::member_of(const std::string& topic) const {
  const auto it = member_of_topic_.find(topic);
  return it == member_of_topic_.end() ? 0 : it->second;
}

template <typename T, typename Topic>
std::vector<std::vector<T>> split_consumer::by_member(const std::vector<T>& items,
                                                      Topic topic_of) const {
  std::vector<std::vector<T>> parts(members_.size());
  for (const auto& item : items) {
    parts[member_of(topic_of(item))].push_back(item);
  }
  return parts;
}

void split_consumer::broker_up(std::size_t member, bool up) {
  broker_up_[member] = up;
  const bool all_up = std::all_of(broker_up_.begin(), broker_up_.end(), [](bool b) { return b; });
  // Reported on every report, as a single consumer does; the owner tells changes apart.
  cb_.on_broker_up(all_up);
}

std::vector<record> split_consumer::poll(std::chrono::milliseconds timeout,
                                         std::size_t max_records) {
  const std::size_t limit = std::max<std::size_t>(max_records, 1);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<record> out;
  for (;;) {
    // Every member once without waiting (its callbacks are served there too), the first to go
    // alternating, so that neither takes the whole room every time.
    for (std::size_t i = 0; i < members_.size() && out.size() < limit; ++i) {
      auto got = members_[(first_ + i) % members_.size()]->poll(std::chrono::milliseconds{0},
                                                                limit - out.size());
      std::move(got.begin(), got.end(), std::back_inserter(out));
    }
    first_ = (first_ + 1) % members_.size();
    const auto now = std::chrono::steady_clock::now();
    if (!out.empty() || now >= deadline) {
      return out;
    }
    // Nothing yet: wait on the first subscription (the source) for a while.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    out = members_.front()->poll(std::min(left, later_members_wait), limit);
    if (!out.empty()) {
      return out;
    }
  }
}

void split_consumer::settle_joins() {
  const auto until = std::chrono::steady_clock::now() + leaving_settle_bound;
  const auto any_joining = [this] {
    return std::any_of(members_.begin(), members_.end(),
                       [](const std::unique_ptr<consumer>& m) { return m->joining(); });
  };
  try {
    // Settled once no member has joined for leaving_settle_quiet: an assignment that moves
    // partitions is followed at once by another round (cooperative-sticky).
    auto quiet_since = std::chrono::steady_clock::now();
    for (auto now = quiet_since; now < until; now = std::chrono::steady_clock::now()) {
      if (any_joining()) {
        quiet_since = now;
      } else if (now - quiet_since >= leaving_settle_quiet) {
        return;
      }
      for (auto& m : members_) {
        // Dropped: uncommitted, so the partitions' next owner fetches them again.
        static_cast<void>(m->poll(std::chrono::milliseconds{10}, 1));
      }
    }
  } catch (const std::exception& e) {
    // The commit goes out as it is: refused for a newer generation, at-least-once allows it.
    if (cb_.on_error) {
      cb_.on_error(std::string("waiting for the group's join before the final commit: ") +
                   e.what());
    }
  }
}

void split_consumer::commit(const std::vector<offset_commit>& offsets, commit_mode mode) {
  if (mode == commit_mode::leaving) {
    settle_joins();
  }
  const auto parts = by_member(
      offsets, [](const offset_commit& o) -> const std::string& { return o.partition.topic; });
  std::exception_ptr first_error;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].empty()) {
      continue;
    }
    try {
      members_[i]->commit(parts[i], mode);
    } catch (const kafka_error&) {
      first_error = first_error ? first_error : std::current_exception();
    }
  }
  if (first_error) {
    std::rethrow_exception(first_error);
  }
}

void split_consumer::complete_revoke() {
  for (auto& m : members_) {
    m->complete_revoke();
  }
}

void split_consumer::pause(const std::vector<partition_id>& ps) {
  for_each_member(ps, [](consumer& m, const std::vector<partition_id>& mine) { m.pause(mine); });
}

void split_consumer::resume(const std::vector<partition_id>& ps) {
  for_each_member(ps, [](consumer& m, const std::vector<partition_id>& mine) { m.resume(mine); });
}

template <typename Call>
void split_consumer::for_each_member(const std::vector<partition_id>& ps, Call call) {
  const auto parts =
      by_member(ps, [](const partition_id& p) -> const std::string& { return p.topic; });
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (!parts[i].empty()) {
      call(*members_[i], parts[i]);
    }
  }
}

std::vector<partition_id> split_consumer::assignment() const {
  std::vector<partition_id> all;
  for (const auto& m : members_) {
    auto held = m->assignment();
    std::move(held.begin(), held.end(), std::back_inserter(all));
  }
  return all;
}

void split_consumer::close() {
  std::exception_ptr first_error;
  for (auto it = members_.rbegin(); it != members_.rend(); ++it) {
    try {
      (*it)->close();
    } catch (const std::exception&) {
      first_error = first_error ? first_error : std::current_exception();
    }
  }
  if (first_error) {
    std::rethrow_exception(first_error);
  }
}

std::unique_ptr<group_consumer> open_group_member(const consumer_settings& s,
                                                  consumer::callbacks cb) {
  std::vector<std::string> first;
  std::vector<std::string> second;
  for (const auto& topic : s.topics) {
    const bool separate =
        std::find(s.separate_member_topics.begin(), s.separate_member_topics.end(), topic) !=
        s.separate_member_topics.end();
    (separate ? second : first).push_back(topic);
  }
  if (first.empty() || second.empty()) {
    return std::make_unique<consumer>(s, std::move(cb));
  }
  return std::make_unique<split_consumer>(s, std::vector<std::vector<std::string>>{first, second},
                                          std::move(cb));
}

}  // namespace courier::kafka
