#include "tools/redrive/redrive.hpp"

#include "core/kafka/error.hpp"
#include "core/kafka/range_reader.hpp"
#include "tools/redrive/inspect.hpp"
#include "tools/redrive/mover.hpp"
#include "tools/redrive/setup.hpp"

namespace courier::redrive {

int run(const options& o, std::ostream& out, std::ostream& err) {
  try {
    kafka::range_reader reader{cluster_of(o), o.timeout};
    switch (o.what) {
      case options::mode::list:
        return run_list(o, reader, out);
      case options::mode::stats:
        return run_stats(o, reader, out);
      case options::mode::show:
        return run_show(o, reader, out, err);
      case options::mode::redrive:
        return move_records(o, reader, out, err);
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
