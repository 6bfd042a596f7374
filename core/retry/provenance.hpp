#pragma once

// What courier trusts of a record's courier.* headers (DESIGN.md section 12).
//
// courier's provenance (where a record first appeared, how many attempts it had, its tier, due
// time and failure times, the route that wrote it) decides where records go and what the audit
// believes. Only courier writes it, and only on topics courier owns: its retry tiers (and the
// DLQ, which courier consumes only through redrive). On a record of a source topic, which any
// producer can write, those headers are not courier's: they are taken off the record before
// anything reads them, counted and logged, and courier writes its own onward. What a producer
// may choose stays: courier.idempotency.key (bounded, core/model/idempotency_key.hpp),
// courier.correlation.id, and redrive's marks (a forged courier.redrive.count can only make
// redrive's loop guard refuse sooner).

#include <string>
#include <string_view>
#include <vector>

#include "core/model/record.hpp"

namespace courier {

// True for the courier.* headers that only courier writes, on the topics it owns.
bool is_provenance_header(std::string_view name);

// Takes every provenance header off a source record's headers and returns the distinct names
// it took (in first-seen order); nothing when it carried none.
std::vector<std::string> drop_untrusted_provenance(header_list& headers);

}  // namespace courier
