#pragma once

#include "core/redrive/filter.hpp"
#include "core/redrive/parked_record.hpp"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace courier::redrive {

struct plan_settings {
  filter select;
  std::optional<std::string> to;  // --to; else each record's origin topic
  // Without --to: the topics a record may return to (the sources of the DLQ's routes). A
  // courier.origin.topic outside them is refused, whoever wrote it.
  std::optional<std::set<std::string>> home;
  int max_redrives = 3;
  bool force = false;
};

// What a run does with one DLQ record.
struct decision {
  enum class action { move, already_redriven, filtered_out, refused, malformed };
  action what = action::move;
  std::string target_topic;            // for move
  std::int32_t target_partition = -1;  // the origin partition when returning home; -1: by key
  std::string reason;                  // for refused and malformed
};

// In this order: the ledger has it; the filter excludes it; a malformed header (or no origin
// topic without --to); an origin topic that is not a source of the DLQ's routes, without --to;
// the loop guard. Pure.
decision decide(const parked_record& r, const plan_settings& s, bool in_ledger);

std::string_view to_string(decision::action a);

}  // namespace courier::redrive
