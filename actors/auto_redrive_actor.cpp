#include "actors/auto_redrive_actor.hpp"

#include <chrono>
#include <exception>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "actors/failure_log.hpp"
#include "actors/messages.hpp"
#include "core/log/json_log.hpp"

namespace courier::actors {
namespace {

using self_ptr = caf::stateful_actor<auto_redrive_actor_state>*;

nlohmann::json window_json(const auto_redrive_event& e) {
  return {{"auto_redrive_event", e.id},
          {"open_since_ms", e.open_since_ms},
          {"dead_lettered_since_ms", e.since_ms},
          {"dead_lettered_until_ms", e.until_ms}};
}

nlohmann::json outcome_json(const auto_redrive_outcome& o) {
  nlohmann::json j{{"moved", o.moved},
                   {"failed", o.failed},
                   {"already_redriven", o.already_redriven},
                   {"stopped", o.stopped}};
  if (!o.error.empty()) {
    j["error"] = o.error;
  }
  return j;
}

// The fields every log line of it starts with: its route, and its endpoint if it has one.
nlohmann::json where(const auto_redrive_actor_state& s) {
  nlohmann::json j{{"route", s.route}};
  if (!s.endpoint.empty()) {
    j["endpoint"] = s.endpoint;
  }
  return j;
}

nlohmann::json state_json(self_ptr self) {
  const auto& st = self->state;
  const auto& t = *st.trigger;
  const auto& s = t.settings();
  nlohmann::json j = where(st);
  j.update(nlohmann::json{{"phase", std::string{to_string(t.current())}},
                          {"events", t.events()},
                          {"settings",
                           {{"after_ms", s.after.count()},
                            {"lookback_ms", s.lookback.count()},
                            {"classes", s.classes},
                            {"rate", s.rate},
                            {"max", s.max}}}});
  if (const auto since = t.open_since()) {
    j["open_since_ms"] = *since;
  }
  if (const auto at = t.due_at()) {
    j["due_at_ms"] = *at;
  }
  if (st.last_ended_ms != 0) {
    j["last_run"] = outcome_json(st.last);
    j["last_run"]["ended_ms"] = st.last_ended_ms;
  }
  return j;
}

// One worker's job: what to run, and whom to tell.
struct worker_job {
  caf::actor parent;
  auto_redrive_event event;
  bool dry_run = false;
  std::uint64_t reply_id = 0;
  std::shared_ptr<std::atomic<bool>> stop;
  std::shared_ptr<std::atomic<bool>> shutdown;
  auto_redrive_runner runner;
};

// The worker: runs the job (blocking), then sends the outcome as redrive_done_atom. The job is a
// spawn argument, not a capture: CAF 0.17 dereferences a null argument tuple when an actor is
// spawned without any (UBSan reports it).
void run_worker(caf::blocking_actor* /*self*/, const worker_job& job) {
  auto_redrive_outcome out;
  try {
    out = job.runner(job.event, job.dry_run,
                     [&job] { return job.stop->load() || job.shutdown->load(); });
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  caf::anon_send(job.parent, redrive_done_atom::value, job.reply_id, job.dry_run,
                 static_cast<std::uint64_t>(out.moved), static_cast<std::uint64_t>(out.would_move),
                 static_cast<std::uint64_t>(out.failed),
                 static_cast<std::uint64_t>(out.already_redriven), out.stopped, out.error);
}

// Runs `event` on a worker of its own; the outcome comes back as redrive_done_atom.
void start_worker(self_ptr self, const auto_redrive_event& event, bool dry_run,
                  std::uint64_t reply_id, std::shared_ptr<std::atomic<bool>> stop) {
  worker_job job{caf::actor_cast<caf::actor>(self),
                 event,
                 dry_run,
                 reply_id,
                 std::move(stop),
                 self->state.shutdown,
                 self->state.runner};
  self->spawn(run_worker, std::move(job));
}

void schedule_check(self_ptr self, std::int64_t at_ms) {
  const auto wait = std::chrono::milliseconds{std::max<std::int64_t>(0, at_ms - now_ms(self))};
  self->delayed_send(self, wait, due_atom::value, ++self->state.generation);
  auto fields = where(self->state);
  fields["due_at_ms"] = at_ms;
  log::info("auto-redrive armed", fields);
}

void stop_run(self_ptr self, const char* why) {
  if (self->state.stop_run) {
    self->state.stop_run->store(true);
    auto fields = where(self->state);
    fields["reason"] = why;
    log::warn("auto-redrive stopping", fields);
  }
}

// The route's gauge that counts an auto-redrive in `p`; none for idle.
std::optional<route_gauge> gauge_of(auto_redrive_trigger::phase p) {
  using phase = auto_redrive_trigger::phase;
  switch (p) {
    case phase::idle:
      return std::nullopt;
    case phase::open:
      return route_gauge::auto_redrive_watching;
    case phase::armed:
      return route_gauge::auto_redrive_armed;
    case phase::running:
      return route_gauge::auto_redrive_running;
  }
  return std::nullopt;
}

// After each message: the gauges move this auto-redrive from the phase they counted to the
// trigger's phase now.
void publish_phase(self_ptr self) {
  auto& s = self->state;
  const auto now = s.trigger->current();
  if (now == s.published) {
    return;
  }
  if (const auto was = gauge_of(s.published)) {
    --s.metrics->gauges[*was];
  }
  if (const auto is = gauge_of(now)) {
    ++s.metrics->gauges[*is];
  }
  s.published = now;
}

// The armed check fired: the event starts, unless the trigger moved on meanwhile.
void on_due(self_ptr self, std::uint64_t generation) {
  auto& s = self->state;
  if (generation != s.generation) {
    return;
  }
  const auto now = now_ms(self);
  const auto event = s.trigger->due(now);
  if (!event) {
    if (const auto at = s.trigger->due_at(); at && *at > now) {
      schedule_check(self, *at);  // the timer fired early by the wall clock
    }
    return;
  }
  ++s.metrics->actors[route_counter::auto_redrive_events];
  auto fields = window_json(*event);
  fields.update(where(s));
  fields["classes"] = s.trigger->settings().classes;
  fields["rate"] = s.trigger->settings().rate;
  fields["max"] = s.trigger->settings().max;
  log::info("auto-redrive started", fields);
  s.stop_run = std::make_shared<std::atomic<bool>>(false);
  start_worker(self, *event, /*dry_run=*/false, event->id, s.stop_run);
}

// A dry run ended: its figures answer every preview request that waited for them.
void on_preview_done(self_ptr self, std::uint64_t reply_id, const auto_redrive_outcome& out) {
  auto& s = self->state;
  if (reply_id != s.next_preview || !s.preview_window) {
    return;  // not the dry run under way
  }
  auto j = state_json(self);
  j["preview"] = {{"would_move", out.would_move},
                  {"already_redriven", out.already_redriven},
                  {"window", window_json(*s.preview_window)},
                  {"computed_at_ms", now_ms(self)}};
  if (!out.error.empty()) {
    j["preview"]["error"] = out.error;
  }
  s.preview_window.reset();
  s.last_preview = j["preview"];
  s.last_preview_ms = now_ms(self);
  for (auto& waiting : s.preview_waiting) {
    waiting.deliver(j.dump());
  }
  s.preview_waiting.clear();
}

// An event's run ended: counted, logged, and the trigger told.
void on_run_done(self_ptr self, std::uint64_t reply_id, const auto_redrive_outcome& out) {
  auto& s = self->state;
  s.metrics->actors[route_counter::auto_redrive_moved] += out.moved;
  s.metrics->actors[route_counter::auto_redrive_failed] += out.failed + (out.error.empty() ? 0 : 1);
  s.last = out;
  s.last_ended_ms = now_ms(self);
  s.stop_run.reset();
  auto fields = outcome_json(out);
  fields.update(where(s));
  fields["auto_redrive_event"] = reply_id;
  if (out.error.empty() && out.failed == 0) {
    log::info("auto-redrive finished", fields);
  } else {
    log::warn("auto-redrive finished with failures", fields);
  }
  if (const auto next = s.trigger->finished(now_ms(self))) {
    schedule_check(self, *next);
  }
}

// GET /routes/<name>/auto-redrive: the state, with a preview of what an event would move now
// (a dry run, shared by the requests that come while it runs, reused for a while).
caf::typed_response_promise<std::string> on_preview_request(self_ptr self) {
  auto& s = self->state;
  auto promise = self->make_response_promise<std::string>();
  const auto window = s.trigger->preview(now_ms(self));
  if (!window) {
    auto j = state_json(self);
    j["preview"] = {{"would_move", 0}, {"note", "no Open period since the last event"}};
    promise.deliver(j.dump());
    return promise;
  }
  if (s.last_preview &&
      now_ms(self) - s.last_preview_ms < std::chrono::milliseconds{preview_reuse}.count()) {
    auto j = state_json(self);
    j["preview"] = *s.last_preview;
    promise.deliver(j.dump());
    return promise;
  }
  s.preview_waiting.push_back(promise);
  if (!s.preview_window) {
    s.preview_window = *window;
    start_worker(self, *window, /*dry_run=*/true, ++s.next_preview,
                 std::make_shared<std::atomic<bool>>(false));
  }
  return promise;
}

// POST /routes/<name>/auto-redrive/stop: the run under way stops, an armed event is dropped.
std::string on_stop(self_ptr self) {
  auto& s = self->state;
  const auto c = s.trigger->cancel();
  if (c.stop_run) {
    stop_run(self, "the operator asked");
  }
  if (c.dropped_armed) {
    ++s.generation;  // the armed check finds nothing
    log::warn("auto-redrive event dropped by operator", where(s));
  }
  auto j = state_json(self);
  j["stopped"] = c.stop_run;
  j["dropped"] = c.dropped_armed;
  return j.dump();
}

}  // namespace

caf::behavior auto_redrive_actor(self_ptr self, std::string route, std::string endpoint,
                                 auto_redrive_settings settings, auto_redrive_runner runner,
                                 std::shared_ptr<route_metrics> metrics) {
  log_failures(self, "auto_redrive", route);
  auto& st = self->state;
  st.time.start(self->clock().now());
  st.route = std::move(route);
  st.endpoint = std::move(endpoint);
  st.trigger = std::make_unique<auto_redrive_trigger>(std::move(settings));
  st.runner = std::move(runner);
  st.metrics = std::move(metrics);
  // A run under way stops at its next batch when the actor goes (courier stops).
  self->attach_functor([shutdown = st.shutdown]() { shutdown->store(true); });
  return {
    [=](state_atom, const breaker_change& change) {
      auto& s = self->state;
      const auto r = s.trigger->on_breaker(change.to, now_ms(self));
      if (r.stop_run) {
        stop_run(self, "the breaker opened again");
      }
      if (r.check_at) {
        schedule_check(self, *r.check_at);
      }
      publish_phase(self);
    },
    [=](due_atom, std::uint64_t generation) {
      on_due(self, generation);
      publish_phase(self);
    },
    [=](redrive_done_atom, std::uint64_t reply_id, bool dry_run, std::uint64_t moved,
        std::uint64_t would_move, std::uint64_t failed, std::uint64_t already, bool stopped,
        const std::string& error) {
      const auto_redrive_outcome out{moved, would_move, failed, already, stopped, error};
      if (dry_run) {
        on_preview_done(self, reply_id, out);
      } else {
        on_run_done(self, reply_id, out);
      }
      publish_phase(self);
    },
    [=](caf::get_atom) { return on_preview_request(self); },
    [=](stop_atom) -> std::string {
      auto answer = on_stop(self);
      publish_phase(self);
      return answer;
    },
  };
}

}  // namespace courier::actors
