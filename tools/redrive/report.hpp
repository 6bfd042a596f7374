#pragma once

#include "core/model/record.hpp"
#include "core/redrive/inspect.hpp"
#include "core/redrive/run_summary.hpp"
#include "core/redrive/stats.hpp"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace courier::redrive {

// What the redrive command prints of what core/redrive returns: text, or one JSON line (--json).

void print_list(std::ostream& out, const std::vector<list_row>& rows, std::int64_t now_ms,
                bool json);
void print_stats(std::ostream& out, const dlq_stats& s, std::int64_t now_ms, bool json);
void print_record(std::ostream& out, const record& r, bool json);
void print_run(std::ostream& out, const run_summary& s, bool json);

// "42s", "3m", "5h", "2d": a short age for tables.
std::string format_age(std::int64_t age_ms);

}  // namespace courier::redrive
