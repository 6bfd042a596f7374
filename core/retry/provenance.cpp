#include "core/retry/provenance.hpp"

#include <algorithm>
#include <array>

#include "core/retry/retry_headers.hpp"

namespace courier {

bool is_provenance_header(std::string_view name) {
  static constexpr std::array<std::string_view, 13> exact{
      route_header,         origin_topic_header,     origin_partition_header,
      origin_offset_header, origin_timestamp_header, attempts_header,
      retry_tier_header,    retry_due_header,        first_failure_header,
      last_failure_header,  followers_header,        error_trace_header,
      replay_id_header};
  // Every source record's headers pass here: most are not courier's at all.
  static constexpr std::string_view courier_prefix = "courier.";
  if (name.substr(0, courier_prefix.size()) != courier_prefix) {
    return false;
  }
  if (name.substr(0, error_header_prefix.size()) == error_header_prefix) {
    return true;
  }
  return std::find(exact.begin(), exact.end(), name) != exact.end();
}

std::vector<std::string> drop_untrusted_provenance(header_list& headers) {
  std::vector<std::string> dropped;
  const auto untrusted = [&dropped](const header& h) {
    if (!is_provenance_header(h.first)) {
      return false;
    }
    if (std::find(dropped.begin(), dropped.end(), h.first) == dropped.end()) {
      dropped.push_back(h.first);
    }
    return true;
  };
  headers.erase(std::remove_if(headers.begin(), headers.end(), untrusted), headers.end());
  return dropped;
}

}  // namespace courier
