#include "core/redrive/plan.hpp"

#include "core/retry/header_value.hpp"
#include "core/retry/retry_headers.hpp"
#include "core/redrive/redrive_headers.hpp"

namespace courier::redrive {

decision decide(const parked_record& r, const plan_settings& s, bool in_ledger) {
  decision d;
  if (in_ledger) {
    d.what = decision::action::already_redriven;
    return d;
  }
  if (!matches(s.select, r)) {
    d.what = decision::action::filtered_out;
    return d;
  }
  if (r.problem) {
    d.what = decision::action::malformed;
    d.reason = *r.problem;
    return d;
  }
  if (!s.to && !r.origin_topic) {
    d.what = decision::action::malformed;
    d.reason = r.coordinates + ": header " + std::string{origin_topic_header} +
               " is missing; name a target with --to";
    return d;
  }
  if (!s.to && s.home && s.home->count(*r.origin_topic) == 0) {
    d.what = decision::action::refused;
    std::string sources;
    for (const auto& t : *s.home) {
      sources += (sources.empty() ? "" : ", ") + t;
    }
    d.reason = r.coordinates + ": origin topic \"" + cap_header_value(*r.origin_topic, 64) +
               "\" is not a source of this DLQ's routes (" + sources + "); --to names a target";
    return d;
  }
  switch (loop_guard(r.redrive_count, s.max_redrives, s.force)) {
    case guard_verdict::refused:
      d.what = decision::action::refused;
      d.reason = r.coordinates + ": redriven " + std::to_string(r.redrive_count) +
                 " times already (limit " + std::to_string(s.max_redrives) + "); --force overrides";
      return d;
    case guard_verdict::allowed:
    case guard_verdict::forced:
      break;
  }
  d.what = decision::action::move;
  if (s.to) {
    d.target_topic = *s.to;
  } else {
    d.target_topic = *r.origin_topic;
    d.target_partition = r.origin_partition.value_or(-1);
  }
  return d;
}

std::string_view to_string(decision::action a) {
  switch (a) {
    case decision::action::move:
      return "move";
    case decision::action::already_redriven:
      return "already_redriven";
    case decision::action::filtered_out:
      return "filtered_out";
    case decision::action::refused:
      return "refused";
    case decision::action::malformed:
      return "malformed";
  }
  return "unknown";
}

}  // namespace courier::redrive
