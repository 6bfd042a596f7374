#pragma once

#include <map>
#include <string>
#include <vector>

namespace courier::kafka {

struct consumer_settings {
  std::string bootstrap;
  std::string group_id;
  std::vector<std::string> topics;
  std::map<std::string, std::string> extra;  // overrides the defaults below
  // Of `topics`, those a second member of the group subscribes to (a route's retry tiers), so
  // that the assignor balances them apart from the rest (split_consumer, open_group_member).
  std::vector<std::string> separate_member_topics;

  // librdkafka's prefetch bound as courier sets it unless `extra` does (consumer_properties.cpp
  // says why).
  static constexpr const char* default_queued_max_messages_kbytes = "32768";
  // The bound in effect: `extra`'s, or courier's default.
  [[nodiscard]] std::string queued_max_messages_kbytes() const {
    const auto it = extra.find("queued.max.messages.kbytes");
    return it == extra.end() ? default_queued_max_messages_kbytes : it->second;
  }
};

// The librdkafka properties a consumer gets: courier's defaults (consumer_properties.cpp says why
// each), with `extra` over them, the consumer's own of them only (for_client), and the `cgrp`
// debug lines the member's join state is read from (commit_hold.hpp).
std::map<std::string, std::string> consumer_properties(const consumer_settings& s);

}  // namespace courier::kafka
