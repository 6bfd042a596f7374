#pragma once

// A redrive run (or --dry-run): the selected DLQ records back to their target topics, in
// transactions that write each record and its ledger entry together (DESIGN.md section 6).

#include "tools/redrive/cli.hpp"
#include "core/kafka/range_reader.hpp"

#include <ostream>

namespace courier::redrive {

// Moves what `o` selects; the report goes to `out`, per-record failures and progress to `err`.
// Returns exit_done, or exit_some_failed when a record failed, Kafka failed midway or a stop
// request ended the run at a batch boundary. Throws setup_error before anything is published.
int move_records(const options& o, kafka::range_reader& reader, std::ostream& out,
                 std::ostream& err);

}  // namespace courier::redrive
