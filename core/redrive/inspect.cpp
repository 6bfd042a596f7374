#include "core/redrive/inspect.hpp"

#include "core/kafka/range_reader.hpp"
#include "core/redrive/ledger.hpp"
#include "core/redrive/parked_record.hpp"
#include "core/redrive/plan.hpp"
#include "core/redrive/setup.hpp"

#include <utility>

namespace courier::redrive {

std::string_view to_string(record_status s) {
  switch (s) {
    case record_status::parked:
      return "parked";
    case record_status::redriven:
      return "redriven";
    case record_status::refused:
      return "refused";
    case record_status::malformed:
      return "malformed";
  }
  return "malformed";
}

std::vector<list_row> list_records(const request& r) {
  kafka::range_reader reader{r.cluster, r.timeout};
  const int partitions = checked_partition_count(reader, r, r.from);
  const ledger l = existing_ledger(reader, r);
  plan_settings s = settings_of(r);
  s.force = false;
  std::vector<list_row> rows;
  reader.read(r.from, reader.ranges(r.from, partitions), [&](record&& rec) {
    parked_record p = read_parked_record(std::move(rec));
    const decision d = decide(p, s, l.contains(p.coordinates));
    record_status status = record_status::parked;
    switch (d.what) {
      case decision::action::filtered_out:
        return true;
      case decision::action::move:
        status = record_status::parked;
        break;
      case decision::action::already_redriven:
        status = record_status::redriven;
        break;
      case decision::action::refused:
        status = record_status::refused;
        break;
      case decision::action::malformed:
        status = record_status::malformed;
        break;
    }
    rows.push_back(list_row{p.coordinates, p.raw.key, p.error_class, status, origin_of(p),
                            p.failed_at_ms, p.redrive_count});
    return true;
  });
  return rows;
}

dlq_stats dlq_statistics(const request& r, std::int64_t now_ms) {
  kafka::range_reader reader{r.cluster, r.timeout};
  const int partitions = checked_partition_count(reader, r, r.from);
  const ledger l = existing_ledger(reader, r);
  dlq_stats stats;
  reader.read(r.from, reader.ranges(r.from, partitions), [&](record&& rec) {
    const parked_record p = read_parked_record(std::move(rec));
    if (matches(r.select, p)) {
      stats.add(p, l.contains(p.coordinates), now_ms);
    }
    return true;
  });
  return stats;
}

std::optional<record> find_record(const request& r, const record_position& at) {
  kafka::range_reader reader{r.cluster, r.timeout};
  const int partitions = checked_partition_count(reader, r, at.topic);
  if (at.partition >= partitions) {
    throw setup_error("topic '" + at.topic + "' has no partition " + std::to_string(at.partition));
  }
  return reader.read_one(at.topic, at.partition, at.offset);
}

}  // namespace courier::redrive
