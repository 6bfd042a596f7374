#pragma once

// The read-only modes of redrive: --list, --stats, --show. They publish nothing and create
// nothing (not even the ledger).

#include "tools/redrive/cli.hpp"
#include "core/kafka/range_reader.hpp"

#include <ostream>

namespace courier::redrive {

// --list: one row per DLQ record the filters select, with what a run would do with it.
int run_list(const options& o, kafka::range_reader& reader, std::ostream& out);

// --stats: the selected DLQ records summarised (by error class, origin, age).
int run_stats(const options& o, kafka::range_reader& reader, std::ostream& out);

// --show TOPIC:PARTITION:OFFSET: one record with all its headers.
int run_show(const options& o, kafka::range_reader& reader, std::ostream& out, std::ostream& err);

}  // namespace courier::redrive
