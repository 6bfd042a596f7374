#pragma once

#include "tools/redrive/cli.hpp"

#include <ostream>

namespace courier::redrive {

// Runs what `o` asks for (--list, --stats, --show, or a redrive run) through core/redrive,
// prints the report to `out` and errors to `err`, and returns the exit status: 0 done, 1 some
// records failed (or Kafka failed, or a stop signal ended the run), 2 a usage or configuration
// error (unknown topic, Kafka unreachable).
int run(const options& o, std::ostream& out, std::ostream& err);

}  // namespace courier::redrive
