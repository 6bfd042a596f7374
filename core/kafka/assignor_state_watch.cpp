#include "core/kafka/assignor_state_watch.hpp"

namespace courier::kafka {

namespace {

// The protocol a successful JoinGroup response names, or "" for any other line.
std::string_view chosen_protocol(std::string_view line) {
  constexpr std::string_view response = "JoinGroup response: ";
  constexpr std::string_view success = "(no error)";
  if (line.find(response) == std::string_view::npos || line.size() < success.size() ||
      line.substr(line.size() - success.size()) != success) {
    return {};
  }
  constexpr std::string_view marker = ", Protocol ";
  const auto at = line.find(marker);
  if (at == std::string_view::npos) {
    return {};
  }
  const auto begin = at + marker.size();
  const auto end = line.find(',', begin);
  return end == std::string_view::npos ? std::string_view{} : line.substr(begin, end - begin);
}

}  // namespace

void assignor_state_watch::observe(std::string_view facility, std::string_view line) {
  if (facility == "JOINGROUP") {
    const auto protocol = chosen_protocol(line);
    if (protocol.empty()) {
      return;
    }
    const std::lock_guard lock{mutex_};
    if (protocol != protocol_) {  // librdkafka drops the previous assignor's state
      protocol_ = protocol;
      state_made_ = false;
    }
  } else if (facility == "ASSIGNMENT" && line.find("List with ") != std::string_view::npos) {
    const std::lock_guard lock{mutex_};
    state_made_ = true;
  }
}

bool assignor_state_watch::destroy_would_abort() const {
  const std::lock_guard lock{mutex_};
  return (protocol_ == "cooperative-sticky" || protocol_ == "sticky") && !state_made_;
}

}  // namespace courier::kafka
