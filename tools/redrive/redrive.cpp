#include "tools/redrive/redrive.hpp"

#include "core/kafka/error.hpp"
#include "core/redrive/inspect.hpp"
#include "core/redrive/ledger.hpp"
#include "core/redrive/mover.hpp"
#include "core/redrive/setup.hpp"
#include "tools/redrive/progress.hpp"
#include "tools/redrive/report.hpp"

namespace courier::redrive {
namespace {

// Distinct by role: standard output and standard error.
// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
int print_move(const options& o, std::ostream& out, std::ostream& err) {
  progress_bar bar{err, o.progress};
  progress_callback progress;
  if (o.progress) {
    progress = [&bar](const run_progress& p) { bar.update(p); };
  }
  const run_summary s = move_records(o.run, progress);
  bar.finish();
  for (const auto& r : s.records) {
    if (r.status == outcome_status::failed) {
      err << "redrive: " << r.reason << '\n';
    }
  }
  if (s.interrupted) {
    err << "redrive: stopped: " << *s.interrupted << '\n';
    print_run(out, s, o.json);
    return exit_some_failed;
  }
  print_run(out, s, o.json);
  if (s.stopped) {
    err << "redrive: stopped by a signal at a batch boundary; " << s.moved
        << " moved, the rest stays in the DLQ: run again to move it\n";
    return exit_some_failed;
  }
  return s.failed > 0 ? exit_some_failed : exit_done;
}

// NOLINTNEXTLINE(bugprone-easily-swappable-parameters)
int print_show(const options& o, std::ostream& out, std::ostream& err) {
  const auto r = find_record(o.run, *o.show);
  if (!r) {
    err << "redrive: no record at " << ledger_key(*o.show) << '\n';
    return exit_usage;
  }
  print_record(out, *r, o.json);
  return exit_done;
}

}  // namespace

int run(const options& o, std::ostream& out, std::ostream& err) {
  try {
    switch (o.what) {
      case options::mode::list: {
        const std::int64_t now = now_ms();
        print_list(out, list_records(o.run), now, o.json);
        return exit_done;
      }
      case options::mode::stats: {
        const std::int64_t now = now_ms();
        print_stats(out, dlq_statistics(o.run, now), now, o.json);
        return exit_done;
      }
      case options::mode::show:
        return print_show(o, out, err);
      case options::mode::redrive:
        return print_move(o, out, err);
    }
    return exit_usage;
  } catch (const setup_error& e) {
    err << "redrive: " << e.what() << '\n';
    return exit_usage;
  } catch (const kafka::kafka_error& e) {
    err << "redrive: " << e.what() << '\n';
    return o.what == options::mode::redrive ? exit_some_failed : exit_usage;
  }
}

}  // namespace courier::redrive
