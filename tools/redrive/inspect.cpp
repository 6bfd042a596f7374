#include "tools/redrive/inspect.hpp"

#include "tools/redrive/parked_record.hpp"
#include "tools/redrive/plan.hpp"
#include "tools/redrive/report.hpp"
#include "tools/redrive/setup.hpp"
#include "tools/redrive/stats.hpp"

#include <string>
#include <utility>
#include <vector>

namespace courier::redrive {
namespace {

std::string origin_of(const parked_record& p) {
  if (!p.origin_topic) {
    return "(none)";
  }
  return *p.origin_topic + ":" +
         (p.origin_partition ? std::to_string(*p.origin_partition) : std::string{"?"});
}

}  // namespace

int run_list(const options& o, kafka::range_reader& reader, std::ostream& out) {
  const int partitions = checked_partition_count(reader, o, o.from);
  const ledger l = existing_ledger(reader, o);
  const std::int64_t now = now_ms();
  plan_settings s = settings_of(o);
  s.force = false;
  std::vector<list_row> rows;
  reader.read(o.from, reader.ranges(o.from, partitions), [&](record&& r) {
    parked_record p = read_parked_record(std::move(r));
    const decision d = decide(p, s, l.contains(p.coordinates));
    std::string status;
    switch (d.what) {
      case decision::action::filtered_out:
        return true;
      case decision::action::move:
        status = "parked";
        break;
      case decision::action::already_redriven:
        status = "redriven";
        break;
      case decision::action::refused:
        status = "refused";
        break;
      case decision::action::malformed:
        status = "malformed";
        break;
    }
    rows.push_back(list_row{p.coordinates, p.raw.key, p.error_class, status, origin_of(p),
                            p.failed_at_ms, p.redrive_count});
    return true;
  });
  print_list(out, rows, now, o.json);
  return exit_done;
}

int run_stats(const options& o, kafka::range_reader& reader, std::ostream& out) {
  const int partitions = checked_partition_count(reader, o, o.from);
  const ledger l = existing_ledger(reader, o);
  const std::int64_t now = now_ms();
  dlq_stats stats;
  reader.read(o.from, reader.ranges(o.from, partitions), [&](record&& r) {
    const parked_record p = read_parked_record(std::move(r));
    if (matches(o.select, p)) {
      stats.add(p, l.contains(p.coordinates), now);
    }
    return true;
  });
  print_stats(out, stats, now, o.json);
  return exit_done;
}

// Distinct by role: standard output and standard error.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
int run_show(const options& o, kafka::range_reader& reader, std::ostream& out, std::ostream& err) {
  const record_position& c = *o.show;
  const int partitions = checked_partition_count(reader, o, c.topic);
  if (c.partition >= partitions) {
    throw setup_error("topic '" + c.topic + "' has no partition " + std::to_string(c.partition));
  }
  const auto r = reader.read_one(c.topic, c.partition, c.offset);
  if (!r) {
    err << "redrive: no record at " << ledger_key(c) << '\n';
    return exit_usage;
  }
  print_record(out, *r, o.json);
  return exit_done;
}

}  // namespace courier::redrive
