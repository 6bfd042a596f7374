#include "core/kafka/consumer.hpp"

#include "core/kafka/client_log.hpp"
#include "core/kafka/conf.hpp"
#include "core/kafka/error.hpp"
#include "core/kafka/partition_list.hpp"
#include "core/kafka/rebalance_protocol.hpp"
#include "core/kafka/record_conversion.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>

namespace courier::kafka {
namespace {

// librdkafka learns a high watermark from fetch responses only, so a paused partition's is
// asked of the broker with each statistics report (its lag grows in /metrics while it waits).
// One bound for a round of them (on the prober's thread, not the consumer's).
constexpr std::chrono::milliseconds paused_watermarks_bound{1000};

// Closed handles librdkafka 2.0.2 cannot destroy (assignor_state_watch.hpp), with the context
// their log lines still reach. Never freed, and reachable from here to the end (a leak checker
// at exit sees them held): the process's exit ends their threads.
void keep_until_exit(handle_ptr rk, std::unique_ptr<consumer::client_context> context) {
  struct kept_handle {
    rd_kafka_t* rk;
    consumer::client_context* context;
  };
  static std::mutex mutex;
  static auto* const kept = new std::vector<kept_handle>();  // never deleted, on purpose
  context->owner = nullptr;
  const std::lock_guard lock{mutex};
  kept->push_back(kept_handle{rk.release(), context.release()});
}

// What one synchronous commit reported, partition by partition.
struct commit_result {
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  topic_partition_list_ptr offsets;
};

void on_commit(rd_kafka_t* /*rk*/, rd_kafka_resp_err_t err,
               rd_kafka_topic_partition_list_t* offsets, void* opaque) {
  auto* result = static_cast<commit_result*>(opaque);
  result->err = err;
  if (offsets != nullptr) {
    result->offsets.reset(rd_kafka_topic_partition_list_copy(offsets));
  }
}

bool cooperative(rd_kafka_t* rk) { return is_cooperative(rd_kafka_rebalance_protocol(rk)); }

}  // namespace

// The consumer as the rebalance protocol's member, for one rebalance callback (`partitions`: the
// list librdkafka passed it) or outside one (nullptr: nothing is being assigned).
class consumer::rebalance_side final : public rebalance_backend {
 public:
  rebalance_side(consumer& c, const rd_kafka_topic_partition_list_t* partitions)
      : c_(c), partitions_(partitions) {}

  [[nodiscard]] bool closing() const override { return c_.closed_; }
  [[nodiscard]] bool assignment_lost() const override {
    return rd_kafka_assignment_lost(c_.rk_.get()) != 0;
  }
  [[nodiscard]] std::vector<partition_id> held() const override { return c_.assignment(); }

  std::vector<assigned_partition> read_assignment(bool ask_committed) override {
    with_offsets_.reset(rd_kafka_topic_partition_list_copy(partitions_));
    return ask_committed ? c_.read_committed(with_offsets_.get())
                         : without_committed(with_offsets_.get());
  }
  void take_up() override { c_.assign(with_offsets_.get()); }
  void give_up(const std::vector<partition_id>& ps) override {
    c_.unassign(to_partition_list(ps).get());
  }
  void drop_assignment() override { c_.unassign(nullptr); }
  void clear_pause(const std::vector<partition_id>& ps) override { c_.resume(ps); }
  void forget_held_commits(const std::vector<partition_id>& ps) override {
    c_.held_commits_.forget(ps);
  }
  void report(const std::string& message) override { c_.report(message); }
  bool keep_first(std::exception_ptr e) override {
    if (c_.pending_) {
      return false;
    }
    c_.pending_ = std::move(e);
    return true;
  }

  void owner_assigned(const std::vector<assigned_partition>& given) override {
    if (c_.cb_.on_assigned) {
      c_.cb_.on_assigned(given);
    }
  }
  revoke_timing owner_revoked(const std::vector<partition_id>& ps, bool lost) override {
    return c_.cb_.on_revoked ? c_.cb_.on_revoked(ps, lost) : revoke_timing::now;
  }

 private:
  consumer& c_;
  const rd_kafka_topic_partition_list_t* partitions_;
  topic_partition_list_ptr with_offsets_;  // the partitions being assigned, offsets read
};

consumer::consumer(const consumer_settings& s, callbacks cb)
    : cb_(std::move(cb)), context_(std::make_unique<client_context>()) {
  context_->owner = this;
  context_->debug_asked = s.extra.count("debug") > 0;
  conf_ptr conf = make_conf(consumer_properties(s));
  rd_kafka_conf_set_log_cb(conf.get(), &consumer::on_client_log);
  rd_kafka_conf_set_rebalance_cb(conf.get(), &consumer::on_rebalance);
  rd_kafka_conf_set_error_cb(conf.get(), &consumer::on_kafka_error);
  rd_kafka_conf_set_stats_cb(conf.get(), &consumer::on_stats);
  rd_kafka_conf_set_offset_commit_cb(conf.get(), &consumer::on_async_commit);
  rd_kafka_conf_set_opaque(conf.get(), context_.get());
  std::array<char, 512> reason{};
  rk_.reset(rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), reason.data(), reason.size()));
  if (!rk_) {
    throw kafka_error(RD_KAFKA_RESP_ERR__INVALID_ARG,
                      "creating a consumer for group '" + s.group_id + "'", reason.data());
  }
  static_cast<void>(conf.release());  // rd_kafka_new took ownership

  // Errors and rebalances are served by rd_kafka_consumer_poll from now on.
  const rd_kafka_resp_err_t fwd_err = rd_kafka_poll_set_consumer(rk_.get());
  if (fwd_err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(fwd_err, "redirecting the main queue to the consumer queue");
  }
  topic_partition_list_ptr topics{
      rd_kafka_topic_partition_list_new(static_cast<int>(s.topics.size()))};
  for (const std::string& topic : s.topics) {
    rd_kafka_topic_partition_list_add(topics.get(), topic.c_str(), RD_KAFKA_PARTITION_UA);
  }
  const rd_kafka_resp_err_t sub_err = rd_kafka_subscribe(rk_.get(), topics.get());
  if (sub_err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(sub_err, "subscribing group '" + s.group_id + "'");
  }
}

consumer::~consumer() {
  if (!closed_) {
    try {
      close();
    } catch (const std::exception& e) {
      report(std::string("closing the consumer: ") + e.what());
    }
  }
  if (context_->assignor.destroy_would_abort()) {
    report(
        "this member closed before its first assignment under a sticky assignor, which "
        "librdkafka 2.0.2 cannot destroy (its issue #4312): the closed handle is kept until the "
        "process exits");
    keep_until_exit(std::move(rk_), std::move(context_));
  }
}

std::vector<record> consumer::poll(std::chrono::milliseconds timeout, std::size_t max_records) {
  if (closed_) {
    throw kafka_error(RD_KAFKA_RESP_ERR__STATE, "polling a closed consumer");
  }
  rethrow_pending();
  release_held_commits();
  std::vector<record> records;
  const std::size_t limit = std::max<std::size_t>(max_records, 1);
  int wait_ms = static_cast<int>(timeout.count());
  while (records.size() < limit) {
    message_ptr msg{rd_kafka_consumer_poll(rk_.get(), wait_ms)};
    wait_ms = 0;
    if (fatal_) {
      std::array<char, 512> reason{};
      const rd_kafka_resp_err_t err = rd_kafka_fatal_error(rk_.get(), reason.data(), reason.size());
      throw kafka_error(err, "the consumer hit a fatal error", reason.data());
    }
    if (pending_ && records.empty()) {
      rethrow_pending();
    }
    if (!msg) {
      break;
    }
    if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      records.push_back(to_record(*msg));
    } else if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      report("reached the end of " + std::string(rd_kafka_topic_name(msg->rkt)) + "[" +
             std::to_string(msg->partition) + "] at offset " + std::to_string(msg->offset));
    } else if (msg->err == RD_KAFKA_RESP_ERR__FATAL) {
      fatal_ = true;
      std::array<char, 512> reason{};
      const rd_kafka_resp_err_t err = rd_kafka_fatal_error(rk_.get(), reason.data(), reason.size());
      throw kafka_error(err, "the consumer hit a fatal error", reason.data());
    } else {
      std::string where;
      if (msg->rkt != nullptr) {
        where = std::string(" on ") + rd_kafka_topic_name(msg->rkt) + "[" +
                std::to_string(msg->partition) + "]";
      }
      report(std::string("consumer error") + where + ": " + rd_kafka_message_errstr(msg.get()) +
             " (" + rd_kafka_err2name(msg->err) + ")");
    }
  }
  // A callback that threw during this call surfaces on the next one, after these records.
  return records;
}

void consumer::commit(const std::vector<offset_commit>& requested, commit_mode mode) {
  switch (mode) {
    case commit_mode::async:
      if (context_->joining.load()) {
        held_commits_.hold(requested);
        return;
      }
      break;
    case commit_mode::sync:
      wait_for_generation();
      break;
    case commit_mode::leaving:
      break;
  }
  const std::vector<offset_commit> offsets = held_commits_.release_with(requested);
  if (offsets.empty()) {
    return;
  }
  topic_partition_list_ptr list{
      rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size()))};
  for (const auto& c : offsets) {
    auto* e = rd_kafka_topic_partition_list_add(list.get(), c.partition.topic.c_str(),
                                                c.partition.partition);
    e->offset = c.offset;
    if (!c.metadata.empty()) {
      // Freed with the list.
      e->metadata = rd_kafka_mem_malloc(rk_.get(), c.metadata.size());
      std::memcpy(e->metadata, c.metadata.data(), c.metadata.size());
      e->metadata_size = c.metadata.size();
    }
  }
  switch (mode) {
    case commit_mode::sync:
    case commit_mode::leaving: {
      commit_result result;
      const rd_kafka_resp_err_t err =
          rd_kafka_commit_queue(rk_.get(), list.get(), /*rkqu=*/nullptr, &on_commit, &result);
      committed(err, result.offsets ? result.offsets.get() : list.get(), mode);
      return;
    }
    case commit_mode::async: {
      const rd_kafka_resp_err_t err = rd_kafka_commit(rk_.get(), list.get(), /*async=*/1);
      if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        committed(err, list.get(), mode);  // not sent: on_async_commit will not run for it
      }
      return;
    }
  }
}

void consumer::committed(rd_kafka_resp_err_t err, const rd_kafka_topic_partition_list_t* offsets,
                         commit_mode mode) {
  if (offsets == nullptr) {
    return;
  }
  std::vector<commit_outcome> outcomes;
  std::vector<offset_commit> without_metadata;
  outcomes.reserve(static_cast<std::size_t>(offsets->cnt));
  for (int i = 0; i < offsets->cnt; ++i) {
    const auto& e = offsets->elems[i];
    commit_outcome o{partition_id{e.topic, e.partition}, e.offset, {}, false};
    const auto code = e.err != RD_KAFKA_RESP_ERR_NO_ERROR ? e.err : err;
    if (code == RD_KAFKA_RESP_ERR_OFFSET_METADATA_TOO_LARGE && e.metadata_size > 0) {
      o.metadata_dropped = true;
      without_metadata.push_back(offset_commit{o.partition, e.offset, {}});
    }
    o.superseded = code == RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION ||
                   code == RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS ||
                   code == RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID;
    if (code != RD_KAFKA_RESP_ERR_NO_ERROR) {
      o.error = std::string(rd_kafka_err2str(code)) + " (" + rd_kafka_err2name(code) + ")";
    }
    outcomes.push_back(std::move(o));
  }
  if (cb_.on_committed) {
    cb_.on_committed(outcomes);
  }
  commit(without_metadata, mode);
}

void consumer::pause(const std::vector<partition_id>& ps) {
  if (ps.empty()) {
    return;
  }
  topic_partition_list_ptr list = to_partition_list(ps);
  const rd_kafka_resp_err_t err = rd_kafka_pause_partitions(rk_.get(), list.get());
  for (int i = 0; i < list->cnt; ++i) {
    if (list->elems[i].err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      paused_.insert(partition_id{list->elems[i].topic, list->elems[i].partition});
    }
  }
  throw_partition_errors(list.get(), "pausing");
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "pausing partitions");
  }
}

void consumer::resume(const std::vector<partition_id>& ps) {
  std::vector<partition_id> paused;
  std::copy_if(ps.begin(), ps.end(), std::back_inserter(paused),
               [this](const partition_id& p) { return paused_.count(p) > 0; });
  if (paused.empty()) {
    return;
  }
  topic_partition_list_ptr list = to_partition_list(paused);
  const rd_kafka_resp_err_t err = rd_kafka_resume_partitions(rk_.get(), list.get());
  for (int i = 0; i < list->cnt; ++i) {
    if (list->elems[i].err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      paused_.erase(partition_id{list->elems[i].topic, list->elems[i].partition});
    }
  }
  throw_partition_errors(list.get(), "resuming");
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "resuming partitions");
  }
}

std::vector<partition_id> consumer::assignment() const {
  rd_kafka_topic_partition_list_t* raw_list = nullptr;
  const rd_kafka_resp_err_t err = rd_kafka_assignment(rk_.get(), &raw_list);
  topic_partition_list_ptr list{raw_list};
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "reading the assignment");
  }
  return to_partition_ids(list.get());
}

void consumer::close() {
  if (closed_) {
    return;
  }
  closed_ = true;  // whatever fails below, the handle is not used for consuming again
  complete_revoke();
  const rd_kafka_resp_err_t err = rd_kafka_consumer_close(rk_.get());
  rethrow_pending();
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "closing the consumer");
  }
}

rd_kafka_t* consumer::raw() { return rk_.get(); }

void consumer::on_rebalance(rd_kafka_t* /*rk*/, rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  static_cast<client_context*>(opaque)->owner->handle_rebalance(err, partitions);
}

std::vector<partition_position> consumer::with_paused_watermarks(
    std::vector<partition_position> ps) {
  if (!prober_) {
    prober_ = std::make_unique<watermark_prober>(rk_.get(), paused_watermarks_bound);
  }
  std::vector<partition_id> paused;
  for (const auto& p : ps) {
    if (paused_.count(partition_id{p.topic, p.partition}) != 0) {
      paused.emplace_back(partition_id{p.topic, p.partition});
    }
  }
  // The previous report's answers (a round takes up to the bound, off this thread): a paused
  // partition's lag is at most one statistics interval older than the others'.
  const auto answered = prober_->ask(paused);
  for (auto& p : ps) {
    const auto found = answered.find(partition_id{p.topic, p.partition});
    if (found != answered.end()) {
      p = with_watermarks(std::move(p), found->second.low, found->second.high);
    }
  }
  return ps;
}

int consumer::on_stats(rd_kafka_t* /*rk*/, char* json, std::size_t json_len, void* opaque) {
  auto* self = static_cast<client_context*>(opaque)->owner;
  if (self->cb_.on_positions) {
    try {
      const std::string_view text{json, json_len};
      self->cb_.on_positions(self->with_paused_watermarks(parse_consumer_positions(text)));
      if (self->cb_.on_broker_up) {
        if (const auto up = parse_broker_up(text)) {
          self->cb_.on_broker_up(*up);
        }
      }
    } catch (const std::invalid_argument& e) {
      self->report(std::string("statistics: ") + e.what());
    } catch (...) {
      // Not across librdkafka's C frames: poll() rethrows it.
      if (!self->pending_) {
        self->pending_ = std::current_exception();
      }
    }
  }
  return 0;  // librdkafka frees `json`
}

void consumer::on_async_commit(rd_kafka_t* /*rk*/, rd_kafka_resp_err_t err,
                               rd_kafka_topic_partition_list_t* offsets, void* opaque) {
  auto* self = static_cast<client_context*>(opaque)->owner;
  try {
    self->committed(err, offsets, commit_mode::async);
  } catch (...) {
    // Not across librdkafka's C frames: poll() rethrows it.
    if (!self->pending_) {
      self->pending_ = std::current_exception();
    }
  }
}

void consumer::release_held_commits() {
  if (!held_commits_.empty() && !context_->joining.load()) {
    commit({}, commit_mode::async);
  }
}

void consumer::wait_for_generation() {
  const auto until = std::chrono::steady_clock::now() + join_wait_bound;
  while (context_->joining.load() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds{5});
  }
  if (context_->joining.load()) {
    report("the group did not answer this member's join within " +
           std::to_string(join_wait_bound.count()) +
           " ms; committing anyway (a refusal loses the assignment)");
  }
}

void consumer::on_client_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  auto* context = rk != nullptr ? static_cast<client_context*>(rd_kafka_opaque(rk)) : nullptr;
  if (context != nullptr && fac != nullptr && buf != nullptr) {
    const std::string_view facility{fac};
    if (facility == "CGRPJOINSTATE") {
      if (const auto state = join_state_entered(buf)) {
        context->joining.store(join_in_flight(*state));
      }
    } else {
      context->assignor.observe(facility, buf);
    }
  }
  constexpr int debug_level = 7;
  if (level >= debug_level && (context == nullptr || !context->debug_asked)) {
    return;
  }
  forward_client_log(rk, level, fac, buf);
}

void consumer::on_kafka_error(rd_kafka_t* /*rk*/, int err, const char* reason, void* opaque) {
  auto* self = static_cast<client_context*>(opaque)->owner;
  const auto code = static_cast<rd_kafka_resp_err_t>(err);
  if (code == RD_KAFKA_RESP_ERR__FATAL) {
    self->fatal_ = true;
    return;  // poll() throws with rd_kafka_fatal_error's reason
  }
  if (code == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN && self->cb_.on_broker_up) {
    self->cb_.on_broker_up(false);
  }
  self->report(std::string("kafka: ") + reason + " (" + rd_kafka_err2name(code) + ")");
}

void consumer::handle_rebalance(rd_kafka_resp_err_t err,
                                const rd_kafka_topic_partition_list_t* partitions) {
  const std::vector<partition_id> ids = to_partition_ids(partitions);
  rebalance_side side{*this, partitions};
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    rebalance_.assign(ids, side);
    return;
  }
  if (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
    rebalance_.revoke(ids, side);
    return;
  }
  rebalance_.fail(std::string(rd_kafka_err2str(err)) + " (" + rd_kafka_err2name(err) + ")", side);
}

void consumer::complete_revoke() {
  rebalance_side side{*this, nullptr};
  rebalance_.complete_revoke(side);
}

std::vector<assigned_partition> consumer::without_committed(
    const rd_kafka_topic_partition_list_t* partitions) {
  std::vector<assigned_partition> given;
  for (const partition_id& p : to_partition_ids(partitions)) {
    given.push_back(assigned_partition{p, std::nullopt, {}});
  }
  return given;
}

std::vector<assigned_partition> consumer::read_committed(
    rd_kafka_topic_partition_list_t* partitions) {
  std::vector<assigned_partition> given;
  given.reserve(static_cast<std::size_t>(partitions->cnt));
  const rd_kafka_resp_err_t err =
      rd_kafka_committed(rk_.get(), partitions, static_cast<int>(committed_fetch_bound.count()));
  for (int i = 0; i < partitions->cnt; ++i) {
    auto& e = partitions->elems[i];
    assigned_partition a{partition_id{e.topic, e.partition}, std::nullopt, {}};
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR && e.err == RD_KAFKA_RESP_ERR_NO_ERROR && e.offset >= 0) {
      a.committed = e.offset;
      if (e.metadata != nullptr && e.metadata_size > 0) {
        a.metadata.assign(static_cast<const char*>(e.metadata), e.metadata_size);
      }
    } else {
      e.offset = RD_KAFKA_OFFSET_INVALID;  // librdkafka fetches from the committed offset itself
    }
    e.err = RD_KAFKA_RESP_ERR_NO_ERROR;
    given.push_back(std::move(a));
  }
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    report(std::string("reading the committed offsets of the partitions assigned: ") +
           rd_kafka_err2str(err) + "; their records above the commit point are delivered again");
  }
  return given;
}

void consumer::assign(const rd_kafka_topic_partition_list_t* partitions) {
  if (cooperative(rk_.get())) {
    error_ptr error{rd_kafka_incremental_assign(rk_.get(), partitions)};
    if (error) {
      throw kafka_error(rd_kafka_error_code(error.get()), "incremental assign",
                        rd_kafka_error_string(error.get()));
    }
    return;
  }
  const rd_kafka_resp_err_t err = rd_kafka_assign(rk_.get(), partitions);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "assigning partitions");
  }
}

void consumer::unassign(const rd_kafka_topic_partition_list_t* partitions) {
  if (partitions != nullptr && cooperative(rk_.get())) {
    error_ptr error{rd_kafka_incremental_unassign(rk_.get(), partitions)};
    if (error) {
      throw kafka_error(rd_kafka_error_code(error.get()), "incremental unassign",
                        rd_kafka_error_string(error.get()));
    }
    return;
  }
  const rd_kafka_resp_err_t err = rd_kafka_assign(rk_.get(), /*partitions=*/nullptr);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw kafka_error(err, "unassigning partitions");
  }
}

void consumer::report(const std::string& message) {
  if (cb_.on_error) {
    cb_.on_error(message);
  } else {
    std::cerr << "courier::kafka::consumer: " << message << '\n';
  }
}

void consumer::rethrow_pending() {
  if (pending_) {
    std::exception_ptr e = std::exchange(pending_, nullptr);
    std::rethrow_exception(e);
  }
}

}  // namespace courier::kafka
