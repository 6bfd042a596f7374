#pragma once

#include "core/kafka/consumer.hpp"
#include "core/kafka/group_consumer.hpp"
#include "core/model/partition_id.hpp"
#include "core/model/record.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace courier::kafka {

// One member of the consumer group per subscription, driven as one: a route's source topic in
// one member and its retry tiers in another. librdkafka 2.0.2's sticky assignor balances the
// count of partitions a member holds over every topic it subscribes to: one member subscribed
// to a source of 8 partitions and three tiers of 8 let a second instance take all 8 source
// partitions while the first kept only tiers. Apart, each subscription is balanced on its own
// (4 and 4 source partitions, 12 and 12 tier partitions), with cooperative-sticky moving only
// what must move. The members share the group id, so the committed offsets stay where they are.
//
// Each member gets the owner's callbacks; on_broker_up reports up only while every member's
// broker connection is up. poll() takes from every member (the first one to go alternates) and
// waits on the first subscription's member, so the later ones' records wait at most
// `later_members_wait` when there is nothing else. commit, pause and resume go to the member that
// holds the topic; complete_revoke and close to every member.
class split_consumer final : public group_consumer {
 public:
  static constexpr std::chrono::milliseconds later_members_wait{50};
  // How long a leaving commit lets the members' joins finish first (settle_joins), and how long
  // no member may be joining for the group to count as settled. A broker forms the next
  // generation once every member rejoined (a member hears of a rebalance at its next heartbeat,
  // 3 s by default); librdkafka's mock coordinator takes the session timeout less 1 s for each
  // of the two rounds a cooperative rebalance may need.
  static constexpr std::chrono::milliseconds leaving_settle_bound{12000};
  static constexpr std::chrono::milliseconds leaving_settle_quiet{300};

  // `subscriptions`: the topics of each member (each non-empty, none in two). A static member
  // id (group.instance.id) gets the member's index appended from the second member on, so the
  // broker does not fence one member with the other.
  split_consumer(const consumer_settings& s,
                 const std::vector<std::vector<std::string>>& subscriptions,
                 consumer::callbacks cb);
  split_consumer(const split_consumer&) = delete;
  split_consumer& operator=(const split_consumer&) = delete;
  split_consumer(split_consumer&&) = delete;
  split_consumer& operator=(split_consumer&&) = delete;
  ~split_consumer() override = default;  // each member closes itself

  std::vector<record> poll(std::chrono::milliseconds timeout, std::size_t max_records) override;
  // Each member commits its part; when one throws, the others still commit, then the first
  // error is thrown. A leaving commit first lets the members' joins finish (settle_joins).
  void commit(const std::vector<offset_commit>& offsets, commit_mode mode) override;
  void complete_revoke() override;
  void pause(const std::vector<partition_id>& ps) override;
  void resume(const std::vector<partition_id>& ps) override;
  [[nodiscard]] std::vector<partition_id> assignment() const override;
  // Closes every member, the later subscriptions first; the first error is thrown once all
  // were closed.
  void close() override;

 private:
  // The member index of each partition's topic (a topic nobody subscribes to: the first).
  std::size_t member_of(const std::string& topic) const;
  template <typename T, typename Topic>
  std::vector<std::vector<T>> by_member(const std::vector<T>& items, Topic topic_of) const;
  // `call(member, its partitions)` for each member that holds some of `ps`.
  template <typename Call>
  void for_each_member(const std::vector<partition_id>& ps, Call call);
  void broker_up(std::size_t member, bool up);
  // Until no member had a JoinGroup or SyncGroup in flight for leaving_settle_quiet (up to the
  // bound above), polls
  // every member, dropping what it fetches: a member's rejoin can wait for a rebalance callback
  // only its poll serves, and the group's next generation waits for every member, so a commit
  // sent meanwhile would wait behind the JoinGroup and be refused for the generation it ends
  // (commit_hold.hpp). The owner stops right after: what was dropped is not committed.
  void settle_joins();

  consumer::callbacks cb_;
  std::map<std::string, std::size_t> member_of_topic_;
  std::vector<bool> broker_up_;
  std::size_t first_ = 0;  // the member poll() asks first, alternating
  // Declared last, so destroyed first: their close() runs the callbacks above.
  std::vector<std::unique_ptr<consumer>> members_;
};

// The consumer the settings ask for: a split_consumer when `separate_member_topics` names some
// of `topics` (the route's tiers), else one kafka::consumer of all of them.
std::unique_ptr<group_consumer> open_group_member(const consumer_settings& s,
                                                  consumer::callbacks cb);

}  // namespace courier::kafka
