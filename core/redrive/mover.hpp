#pragma once

// A redrive run (or a dry run): the selected DLQ records back to their target topics, in
// transactions that write each record and its ledger entry together (DESIGN.md section 6).

#include "core/redrive/request.hpp"
#include "core/redrive/run_summary.hpp"

namespace courier::redrive {

// Moves what `r` selects, calling `progress` (when set) after every DLQ record it reads. A
// record that could not move is a failed outcome in the summary; a stop request or a Kafka
// failure midway ends the run with what it did so far (`stopped`, `interrupted`).
// Throws setup_error when the run cannot start (nothing was published: an unknown topic, Kafka
// unreachable, the ledger cannot be created), kafka::kafka_error when Kafka fails before the
// DLQ is read.
run_summary move_records(const request& r, const progress_callback& progress = {});

}  // namespace courier::redrive
