#include "core/redrive/mover.hpp"

#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka/transactional_producer.hpp"
#include "core/redrive/ledger.hpp"
#include "core/redrive/parked_record.hpp"
#include "core/redrive/plan.hpp"
#include "core/redrive/producer_properties.hpp"
#include "core/redrive/redrive_headers.hpp"
#include "core/redrive/setup.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace courier::redrive {
namespace {

using std::chrono::milliseconds;

// How often a --rate pause looks for a stop request.
constexpr milliseconds pace_step{100};

// A record on its way out, in the open batch.
struct pending {
  parked_record record;
  decision target;
};

class redrive_run {
 public:
  redrive_run(const request& r, kafka::range_reader& reader, const progress_callback& progress)
      : r_(r), reader_(reader), progress_(progress) {
    summary_.dry_run = r.dry_run;
    batch_size_ = r.batch;
    if (r.rate) {
      // A quarter second's worth at most, so the pace stays even.
      batch_size_ =
          std::min(batch_size_, std::max<std::size_t>(1, static_cast<std::size_t>(*r.rate / 4)));
    }
  }

  run_summary execute() {
    const int partitions = checked_partition_count(reader_, r_, r_.from);
    if (r_.to) {
      static_cast<void>(checked_partition_count(reader_, r_, *r_.to));
    }
    ledger l;
    if (r_.dry_run) {
      l = existing_ledger(reader_, r_);
    } else {
      const int ledger_parts = ensure_ledger(reader_, r_);
      // Fences an earlier run that is still alive (a zombie) and aborts its open transaction,
      // so the ledger read next is complete.
      start_producer();
      l = load_ledger(reader_, r_.ledger_topic, ledger_parts);
    }
    const auto ranges = reader_.ranges(r_.from, partitions);
    run_progress progress;
    for (const auto& range : ranges) {
      progress.total += static_cast<std::size_t>(range.high - range.low);
    }
    started_ = std::chrono::steady_clock::now();
    const plan_settings s = settings_of(r_);
    try {
      reader_.read(r_.from, ranges, [&](record&& rec) {
        if (stop_requested()) {
          return false;  // between transactions: none is open
        }
        ++progress.read;
        const bool more = take(read_parked_record(std::move(rec)), s, l);
        if (progress_) {
          progress.moved = summary_.moved + summary_.would_move;
          progress_(progress);
        }
        return more;
      });
      flush();
    } catch (const kafka::kafka_error& e) {
      summary_.interrupted = e.what();
    }
    summary_.stopped = stopped_;
    return std::move(summary_);
  }

 private:
  // Returns false once --limit is reached.
  bool take(parked_record p, const plan_settings& s, const ledger& l) {
    decision d = decide(p, s, l.contains(p.coordinates));
    switch (d.what) {
      case decision::action::already_redriven:
        ++summary_.already_redriven;
        return true;
      case decision::action::filtered_out:
        ++summary_.filtered_out;
        return true;
      case decision::action::refused:
        ++summary_.refused;
        summary_.records.push_back(
            outcome{p.coordinates, p.raw.key, outcome_status::refused, "", -1, -1, d.reason});
        return true;
      case decision::action::malformed:
        ++summary_.malformed;
        fail(p, d.reason);
        return true;
      case decision::action::move:
        break;
    }
    const int target_partitions = partitions_of(d.target_topic);
    if (target_partitions <= 0) {
      fail(p, p.coordinates + ": target topic '" + d.target_topic + "' does not exist");
      return true;
    }
    if (d.target_partition >= target_partitions) {
      d.target_partition = -1;  // the origin partition is gone: partition by key
    }
    ++planned_;
    if (r_.dry_run) {
      ++summary_.would_move;
      summary_.records.push_back(outcome{p.coordinates, p.raw.key, outcome_status::would_move,
                                         d.target_topic, d.target_partition, -1, ""});
    } else {
      batch_.push_back(pending{std::move(p), std::move(d)});
      if (batch_.size() >= batch_size_) {
        flush();
      }
    }
    return !(r_.limit && planned_ >= *r_.limit);
  }

  void fail(const parked_record& p, const std::string& reason) {
    ++summary_.failed;
    summary_.records.push_back(
        outcome{p.coordinates, p.raw.key, outcome_status::failed, "", -1, -1, reason});
  }

  // 0 when the topic does not exist; asked once per topic.
  int partitions_of(const std::string& topic) {
    const auto it = partitions_.find(topic);
    if (it != partitions_.end()) {
      return it->second;
    }
    int n = 0;
    try {
      n = reader_.partition_count(topic);
    } catch (const kafka::kafka_error& e) {
      if (e.code() != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
        throw;
      }
    }
    partitions_.emplace(topic, n);
    return n;
  }

  // Once true, stays true: the run stops at the next batch boundary.
  bool stop_requested() {
    if (!stopped_ && r_.stop_requested && r_.stop_requested()) {
      stopped_ = true;
    }
    return stopped_;
  }

  // Sleeps in short steps so that a stop request is not held up by --rate.
  void pace() {
    if (!r_.rate) {
      return;
    }
    const auto due = started_ + milliseconds{static_cast<std::int64_t>(
                                    static_cast<double>(committed_) * 1000.0 / *r_.rate)};
    while (std::chrono::steady_clock::now() < due && !stop_requested()) {
      std::this_thread::sleep_until(std::min(due, std::chrono::steady_clock::now() + pace_step));
    }
  }

  // A transactional producer for the DLQ's transactional.id, registered with the coordinator.
  void start_producer() {
    producer_.reset();  // its open transaction aborted, before the next one fences it
    producer_ = std::make_unique<kafka::transactional_producer>(
        r_.cluster.bootstrap, transactional_id_for(r_.from),
        kafka::with_overrides(r_.cluster.connection, redrive_producer_properties(r_.timeout)));
    try {
      producer_->init_transactions(r_.timeout);
    } catch (const kafka::kafka_error& e) {
      throw setup_error("cannot start a transaction for '" + transactional_id_for(r_.from) +
                        "' on " + r_.cluster.bootstrap + " (" + e.what() + ")");
    }
  }

  // The batch in one transaction. A record the producer or the broker refuses (larger than the
  // target's limit, a topic it may not write) would fail its whole batch on every run: then each
  // record goes alone, so that only that one fails, named, and the others move.
  void flush() {
    if (batch_.empty()) {
      return;
    }
    std::vector<pending> batch = std::move(batch_);
    batch_.clear();
    const auto refused = commit(batch);
    if (!refused) {
      return;
    }
    if (batch.size() == 1) {
      fail(batch.front().record, batch.front().record.coordinates + ": not moved: " + *refused);
      return;
    }
    for (auto& item : batch) {
      std::vector<pending> one;
      one.push_back(std::move(item));
      if (const auto why = commit(one)) {
        fail(one.front().record, one.front().record.coordinates + ": not moved: " + *why);
      }
    }
  }

  // One transaction: every target record of the batch and its ledger entry, or none. Returns why
  // the transaction was refused (aborted by the broker, or a record the producer refused at
  // once); nothing when it committed or a stop request dropped it.
  std::optional<std::string> commit(const std::vector<pending>& batch) {
    pace();
    if (stop_requested()) {
      return std::nullopt;  // never produced: it stays in the DLQ for the next run
    }
    const std::int64_t at = now_ms();
    // Shared with the delivery reports, which may outlive this call after a fatal error.
    auto acked = std::make_shared<std::vector<std::pair<std::int32_t, std::int64_t>>>(
        batch.size(), std::make_pair(-1, -1));
    bool producing = false;
    try {
      producer_->begin();
      producing = true;
      for (std::size_t i = 0; i < batch.size(); ++i) {
        const parked_record& p = batch[i].record;
        const decision& d = batch[i].target;
        std::optional<std::string_view> key;
        if (p.raw.key) {
          key = *p.raw.key;
        }
        producer_->produce(
            d.target_topic, d.target_partition, key, p.raw.value.view(),
            redrive_headers(p.raw.headers, p.redrive_count, at, p.coordinates),
            [acked, i](rd_kafka_resp_err_t err, std::int32_t partition, std::int64_t offset) {
              if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
                (*acked)[i] = {partition, offset};
              }
            });
        producer_->produce(r_.ledger_topic, RD_KAFKA_PARTITION_UA, p.coordinates,
                           ledger_value(d.target_topic, d.target_partition, at));
      }
      producing = false;
      if (stop_requested()) {
        producer_->abort(r_.timeout);
        return std::nullopt;  // nothing of this batch became visible
      }
      producer_->commit(r_.timeout);
    } catch (const kafka::transaction_aborted& e) {
      // The broker refused a record of it (larger than the target takes, a topic it may not
      // write). librdkafka 2.0.2 has counted that record in the partition's sequence numbers,
      // the broker has not: the next transaction writing that partition would fail with
      // OUT_OF_ORDER_SEQUENCE_NUMBER (tests/e2e/compressed_test.cpp). A new producer with the
      // same transactional.id starts the sequences over.
      std::string why = std::string{"the transaction was aborted ("} + e.what() + ")";
      start_producer();
      return why;
    } catch (const kafka::kafka_error& e) {
      if (producing && e.code() != RD_KAFKA_RESP_ERR__FATAL) {
        // The producer refused a record at once: nothing of the batch is committed yet.
        producer_->abort(r_.timeout);
        return std::string{"the producer refused it ("} + e.what() + ")";
      }
      for (const auto& item : batch) {
        fail(item.record, item.record.coordinates +
                              ": outcome unknown, the ledger decides on the next run (" + e.what() +
                              ")");
      }
      throw;
    }
    committed_ += batch.size();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      ++summary_.moved;
      summary_.records.push_back(outcome{batch[i].record.coordinates, batch[i].record.raw.key,
                                         outcome_status::moved, batch[i].target.target_topic,
                                         (*acked)[i].first, (*acked)[i].second, ""});
    }
    return std::nullopt;
  }

  const request& r_;
  kafka::range_reader& reader_;
  const progress_callback& progress_;
  std::unique_ptr<kafka::transactional_producer> producer_;
  run_summary summary_;
  std::vector<pending> batch_;
  std::size_t batch_size_ = 100;
  std::size_t planned_ = 0;
  std::size_t committed_ = 0;
  std::map<std::string, int> partitions_;
  std::chrono::steady_clock::time_point started_{};
  bool stopped_ = false;
};

}  // namespace

run_summary move_records(const request& r, const progress_callback& progress) {
  kafka::range_reader reader{r.cluster, r.timeout};
  return redrive_run{r, reader, progress}.execute();
}

}  // namespace courier::redrive
