#include "app/replay_command.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "core/kafka/error.hpp"
#include "core/kafka/range_reader.hpp"
#include "core/kafka/transactional_producer.hpp"
#include "core/redrive/request.hpp"
#include "core/redrive/setup.hpp"
#include "core/redrive/time_arg.hpp"
#include "core/replay/replay_copies.hpp"
#include "topology/topics.hpp"

namespace courier::app {
namespace {

using clock = std::chrono::steady_clock;

// What one partition and endpoint of a run came to.
struct tally {
  std::uint64_t copies = 0;   // written (or, dry, to write)
  std::uint64_t already = 0;  // in the ledger: written by an earlier identical run
};

const route_config& route_named(const courier_config& cfg, const std::string& name) {
  for (const auto& r : cfg.routes) {
    if (r.name == name) {
      return r;
    }
  }
  throw config_error{"--route", "no route named \"" + name + "\" in the config"};
}

std::int64_t time_of(const std::string& flag, const std::string& text, std::int64_t now_ms) {
  if (const auto t = redrive::parse_time_arg(text, now_ms)) {
    return *t;
  }
  throw config_error{flag, redrive::time_arg_expected(text) + ", got '" + text + "'"};
}

// Writes batches of copies, each in one transaction with its ledger entries, at most `rate`
// copies a second.
class copy_writer {
 public:
  copy_writer(const redrive::request& r, const std::string& source, double rate)
      : ledger_(r.ledger_topic), rate_(rate), timeout_(r.timeout) {
    producer_ = std::make_unique<kafka::transactional_producer>(
        r.cluster.bootstrap, "courier-replay-" + source, r.cluster.connection);
    producer_->init_transactions(timeout_);
    batch_limit_ = rate > 0 ? std::max<std::size_t>(1, static_cast<std::size_t>(rate / 4)) : 500;
  }

  // False: a transaction failed (its copies were not written).
  bool add(replay::replay_copy c) {
    batch_.push_back(std::move(c));
    return batch_.size() < batch_limit_ || flush();
  }

  bool flush() {
    if (batch_.empty()) {
      return true;
    }
    pace();
    try {
      producer_->begin();
      for (const auto& c : batch_) {
        producer_->produce(c.produce.topic, c.produce.partition, c.produce.key, c.produce.value,
                           c.produce.headers);
        producer_->produce(ledger_, 0, c.ledger_key, R"({"replayed":true})");
      }
      producer_->commit(timeout_);
    } catch (const kafka::transaction_aborted& e) {
      failure_ = e.what();
      batch_.clear();
      return false;
    }
    written_ += batch_.size();
    batch_.clear();
    return true;
  }

  [[nodiscard]] const std::string& failure() const { return failure_; }

 private:
  // With a rate: the next transaction waits until the copies so far took their time.
  void pace() {
    if (rate_ <= 0) {
      return;
    }
    const auto due =
        start_ + std::chrono::duration_cast<clock::duration>(
                     std::chrono::duration<double>(static_cast<double>(written_) / rate_));
    std::this_thread::sleep_until(due);
  }

  std::string ledger_;
  double rate_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<kafka::transactional_producer> producer_;
  std::vector<replay::replay_copy> batch_;
  std::size_t batch_limit_ = 500;
  std::uint64_t written_ = 0;
  clock::time_point start_ = clock::now();
  std::string failure_;
};

void print(std::ostream& out, const std::string& id, const replay_options& o,
           const std::map<std::pair<std::int32_t, std::string>, tally>& tallies) {
  out << "replay " << id << " of route " << o.route << (o.dry_run ? " (dry run)" : "") << "\n";
  tally total;
  for (const auto& [at, t] : tallies) {
    out << "  partition " << at.first << "  endpoint " << at.second << "  "
        << (o.dry_run ? "would write " : "written ") << t.copies << "  already replayed "
        << t.already << "\n";
    total.copies += t.copies;
    total.already += t.already;
  }
  out << "  total " << (o.dry_run ? "would write " : "written ") << total.copies
      << "  already replayed " << total.already << "\n";
}

}  // namespace

int run_replay(const courier_config& cfg, const replay_options& o, std::ostream& out) {
  const auto& route = route_named(cfg, o.route);
  const auto endpoints = endpoints_of(route);
  const auto routing = routing_of(route, endpoints);
  if (o.endpoint && !routing.index_of(*o.endpoint)) {
    throw config_error{"--endpoint",
                       "route \"" + o.route + "\" has no endpoint named \"" + *o.endpoint + "\""};
  }
  const replay::replay_target target{route.name, topics_of(route), !route.endpoints.empty()};
  if (target.topics.tiers.empty()) {
    throw config_error{"--route", "route \"" + o.route +
                                      "\" has no retry tiers: replay writes its copies to the "
                                      "first, for the running service to deliver"};
  }
  const auto now = redrive::now_ms();
  replay::replay_range range{route.name, o.endpoint, time_of("--since", o.since, now), {}};
  if (o.until) {
    range.until_ms = time_of("--until", *o.until, now);
  }
  const auto id = replay::replay_id(range);

  redrive::request req;
  req.cluster = topology::cluster_of(cfg);
  req.ledger_topic = route.topic + ".replayed";
  req.timeout = o.timeout;
  kafka::range_reader reader{req.cluster, o.timeout};
  const int partitions = reader.partition_count(route.topic);
  std::vector<kafka::partition_range> ranges;
  for (std::int32_t p = 0; p < partitions; ++p) {
    auto r = reader.range_of(route.topic, p);
    r.low = std::max(r.low, reader.offset_at_time(route.topic, p, range.since_ms));
    if (range.until_ms) {
      r.high = std::min(r.high, reader.offset_at_time(route.topic, p, *range.until_ms));
    }
    r.high = std::max(r.high, r.low);
    ranges.push_back(r);
  }
  const auto ledger = o.dry_run ? redrive::existing_ledger(reader, req)
                                : redrive::load_ledger(reader, req.ledger_topic,
                                                       redrive::ensure_ledger(reader, req));
  std::optional<copy_writer> writer;
  if (!o.dry_run) {
    writer.emplace(req, route.topic, o.rate);
  }
  std::map<std::pair<std::int32_t, std::string>, tally> tallies;
  bool failed = false;
  reader.read(route.topic, ranges, [&](record&& r) {
    for (auto& c : replay::copies_of(r, routing, target, o.endpoint, id, now)) {
      auto& t = tallies[{r.partition, c.endpoint}];
      if (ledger.contains(c.ledger_key)) {
        ++t.already;
        continue;
      }
      ++t.copies;
      if (writer && !writer->add(std::move(c))) {
        failed = true;
        return false;
      }
    }
    return true;
  });
  if (writer && !failed && !writer->flush()) {
    failed = true;
  }
  print(out, id, o, tallies);
  if (failed) {
    out << "  a transaction failed (" << writer->failure()
        << "); its copies were not written: run the same replay again\n";
    return 1;
  }
  return 0;
}

}  // namespace courier::app
