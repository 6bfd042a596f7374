#pragma once

#include "core/config/config.hpp"
#include "app/cli.hpp"

namespace courier::app {

// `courier audit` (issue 34): reads one route's source range, its receipts topic, the retry
// tiers past the group's commit points and the DLQ with redrive's ledger, with
// kafka::range_reader (assigned, read_committed, never committing: reading changes nothing),
// and prints what happened to each record (core/audit). Memory grows with the runs of offsets
// and the DLQ records, not with the range: a range of millions of delivered records is a few
// runs.
//
// Exit status: 0 when every record is accounted for, 1 when some are not (listed by offset),
// 2 when the arguments or the configuration cannot work, or a topic of the route is missing
// (named), 3 when Kafka could not be read (or anything else ended the read).
int run_audit(const courier_config& cfg, const audit_options& options);

}  // namespace courier::app
