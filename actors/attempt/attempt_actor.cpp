#include "actors/attempt/attempt_actor.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "actors/attempt/attempt_convert.hpp"
#include "actors/attempt/pi_watcher.hpp"
#include "runtime/agents/failure_record.hpp"
#include "runtime/keeper/keeper_binary.hpp"
#include "runtime/attempt/attempt_run.hpp"
#include "runtime/attempt/silence_clock.hpp"
#include "runtime/process/liveness.hpp"
#include "runtime/process/spawn.hpp"
#include "runtime/records/attempt_records.hpp"
#include "runtime/trace/trace_kinds.hpp"
#include "runtime/trace/trace_writer.hpp"
#include "runtime/worklog/work_log.hpp"

namespace ad::actors {

namespace {

using self_ptr = messages::attempt_actor::stateful_pointer<attempt_state>;
using std::chrono::milliseconds;
using duration = caf::actor_clock::duration_type;

int64_t to_ms(duration d) {
  return std::chrono::duration_cast<milliseconds>(d).count();
}

void terminate_child(self_ptr self, int64_t grace_ms) {
  auto& st = self->state;
  if (st.child_running)
    self->send(st.cfg.process, messages::terminate_process{st.child, grace_ms});
}

int64_t now_ms(self_ptr self) {
  return to_ms(self->state.coro.now().time_since_epoch());
}

// The run's claim watcher is told of the agent before it starts, and the
// agent starts once the watcher answered (in snapshot mode it has taken the
// workspace's "before"), or after `limit_ms` without an answer.
core::task<void> watch_begin(self_ptr self, int64_t limit_ms) {
  auto& st = self->state;
  if (!st.cfg.claims || st.watched)
    co_return;
  st.watched = true;
  const auto& run = *st.run;
  auto ask = core::request(self, st.cfg.claims, milliseconds(limit_ms),
                           messages::attempt_watch_begin{run.setup().task, run.identity(),
                                                         run.marker(), 0, st.write_paths,
                                                         st.cfg.clock->now()});
  (void) co_await ask; // no answer: the attempt goes on, only less watched
}

// The claim watcher learns the agent's pid once it is known (started
// directly, or named by its keeper's record) ...
void watch_agent(self_ptr self, int32_t agent_pid) {
  auto& st = self->state;
  if (st.watched)
    self->send(st.cfg.claims, messages::attempt_watch_agent{st.run->identity(), agent_pid});
}

// ... and that it has ended, before the attempt's result goes out: every
// begin has its end.
void watch_end(self_ptr self) {
  auto& st = self->state;
  if (!st.watched)
    return;
  st.watched = false;
  self->send(st.cfg.claims, messages::attempt_watch_end{st.run->identity(), st.cfg.clock->now()});
}

// Follows the running child until its exit: output, silence, cancellation.
core::task<void> follow(self_ptr self, runtime::attempt_end* end, messages::attempt_timing t) {
  auto& st = self->state;
  auto& run = *st.run;
  runtime::silence_settings settings{t.heartbeat_ms, t.silence_inspection_ms, t.stall_limit_ms};
  auto started = now_ms(self);
  runtime::silence_clock silence{settings, started};
  if (st.record_lines)
    st.lines->edge(runtime::trace_kinds::attempt_follow,
                   runtime::attempt_follow_body(run.identity(), settings, started,
                                                run.setup().progress));
  bool stopping = false;
  uint64_t consumed = 0; // handled and not yet acknowledged
  for (;;) {
    auto wait = milliseconds(std::max<int64_t>(0, silence.next_deadline() - now_ms(self)));
    auto next = core::next_event(st.coro, st.events, wait);
    auto ev = co_await next;
    if (!ev) {
      auto tools = runtime::tool_activity_of_pi_phase(run.pi_phase());
      auto now = now_ms(self);
      int64_t edge = 0;
      if (st.record_lines)
        edge = st.lines->edge(runtime::trace_kinds::attempt_silence,
                                  runtime::attempt_silence_body(run.identity(), now));
      auto due = silence.check(now, tools);
      if (st.record_lines)
        st.lines->decision(runtime::trace_kinds::attempt_silence_due, edge,
                               runtime::silence_due_body(run.identity(), tools, due));
      if (due.stall && !stopping) {
        stopping = true;
        run.stall(due.silent_ms, t.stall_limit_ms);
        end->stop = runtime::dispatcher_stop::session_stall;
        terminate_child(self, t.terminate_grace_ms);
      }
      if (due.inspect)
        run.inspect_silence(due.silent_ms);
      if (due.heartbeat)
        run.heartbeat(due.silent_ms);
    } else if (auto* line = std::get_if<messages::process_line>(&*ev)) {
      if (line->child != st.child)
        continue;
      auto at = now_ms(self);
      silence.on_output(at);
      auto channel = line->stream == messages::process_stream::out ? runtime::output_channel::out
                                                                    : runtime::output_channel::err;
      bool cut = line->cut == messages::process_line_cut::truncated;
      int64_t edge = 0;
      if (st.record_lines)
        edge = st.lines->edge(runtime::trace_kinds::attempt_line,
                                  runtime::attempt_line_body(run.identity(), run.kind(),
                                                             run.setup().role, channel, line->text,
                                                             cut, line->dropped_bytes, at));
      auto out = run.on_line(channel, line->text, cut, line->dropped_bytes, at);
      if (out.review_control_tool && st.record_lines)
        st.lines->decision(runtime::trace_kinds::attempt_review_control, edge,
                               runtime::review_control_body(run.identity(),
                                                            *out.review_control_tool));
      if (out.review_control_tool && !stopping) {
        stopping = true;
        terminate_child(self, t.terminate_grace_ms);
      }
      if (out.no_progress && st.record_lines)
        st.lines->decision(runtime::trace_kinds::attempt_no_progress, edge,
                           runtime::no_progress_body(run.identity(), *out.no_progress));
      if (out.no_progress && !stopping) {
        stopping = true;
        end->stop = runtime::dispatcher_stop::no_progress;
        terminate_child(self, t.terminate_grace_ms);
      }
      consumed += line->text.size() + 1;
      if (consumed >= runtime::attempt_flow_ack) {
        self->send(st.cfg.process, messages::process_output_consumed{st.child, consumed});
        consumed = 0;
      }
    } else if (auto* agent = std::get_if<messages::process_agent_started>(&*ev)) {
      if (agent->child == st.child) {
        run.on_started(agent->pid, agent->start_token);
        watch_agent(self, static_cast<int32_t>(agent->pid));
      }
    } else if (auto* exit = std::get_if<messages::process_exit>(&*ev)) {
      if (exit->child != st.child)
        continue;
      record_exit(*exit, *end);
      st.child_running = false;
      co_return;
    } else if (!stopping) {  // cancellation
      stopping = true;
      end->stop = runtime::dispatcher_stop::cancelled;
      terminate_child(self, t.terminate_grace_ms);
    }
  }
}

void start_watcher(self_ptr self, const messages::attempt_timing& t) {
  auto& run = *self->state.run;
  messages::pi_watch_target target;
  target.session_file = run.pi_session_file().string();
  target.session_dir = run.pi_session_folder().string();
  target.session_id = run.locator().session_id.value_or("");
  target.poll_ms = t.pi_poll_ms;
  auto me = caf::actor_cast<messages::pi_phase_subscriber_actor>(self);
  self->state.watcher = self->spawn(pi_watcher_impl, me, std::move(target));
}

// A locator path with its attempt folder (named with the time the attempt
// opened) as the placeholder "<attempt-dir>", so a re-recorded trace
// compares equal.
std::string placeholder_locator(const std::string& locator) {
  if (locator.empty())
    return locator;
  std::filesystem::path p(locator);
  return (p.parent_path().parent_path() / "<attempt-dir>" / p.filename()).string();
}

// attempt.exit (the classification's inputs, the work-log rows written)
// -> attempt.classified (the verdict) and worklog.row (each row's content),
// when tracing and the end was classified.
void record_classification(const attempt_state& st) {
  const auto& run = *st.run;
  if (!st.cfg.trace || !run.classification_inputs())
    return;
  namespace kinds = runtime::trace_kinds;
  runtime::json rows = runtime::json::array();
  runtime::json written = runtime::json::array();
  for (const auto& e : run.rows_written()) {
    auto row = runtime::work_log_event_to_json(e);
    written.push_back(row.value("event", ""));
    row["locator"] = placeholder_locator(row.value("locator", ""));
    rows.push_back(std::move(row));
  }
  const auto& setup = run.setup();
  runtime::json body{{"task", setup.task},
                     {"stage", setup.role},
                     {"identity", run.identity()},
                     {"attempt", setup.attempt},
                     {"model", setup.launch.model},
                     {"locator", placeholder_locator(run.locator_path().string())},
                     {"rows_written", written},
                     {"usage", runtime::usage_to_json(run.usage())},
                     {"inputs", runtime::failure_inputs_to_json(*run.classification_inputs())},
                     {"line_edges", true},
                     {"file_diagnostics", runtime::diagnostics_to_json(run.file_diagnostics())}};
  auto& trace = *st.cfg.trace;
  auto exit = trace.edge(kinds::attempt_exit, body);
  trace.decision(kinds::attempt_classified, exit,
                 runtime::failure_verdict_to_json(run.classification()));
  for (const auto& row : rows)
    trace.decision(kinds::worklog_row, exit, row);
}

void finish(self_ptr self, caf::typed_response_promise<messages::attempt_result> rp,
            const runtime::failure_verdict& verdict) {
  watch_end(self);
  const auto& run = *self->state.run;
  for (const auto& warning : run.work_log_warnings())
    spdlog::warn("attempt {}: {}", run.identity(), warning);
  auto result = to_attempt_result(run, verdict);
  record_classification(self->state);
  rp.deliver(std::move(result));
  self->quit();
}

core::task<void> run_attempt(self_ptr self, messages::start_attempt req,
                             caf::typed_response_promise<messages::attempt_result> rp) {
  auto& st = self->state;
  st.record_lines = st.cfg.trace != nullptr;
  if (st.record_lines)
    st.lines = st.cfg.trace;
  st.write_paths = req.write_paths;
  auto setup = to_attempt_setup(req, st.cfg);
  if (!setup) {
    rp.deliver(caf::make_error(messages::errc::invalid_request, setup.error().to_string()));
    self->quit();
    co_return;
  }
  const bool kept = !st.cfg.keeper.empty();
  setup->kept = kept;
  auto opened = runtime::attempt_run::open(std::move(*setup), *st.cfg.clock);
  if (!opened) {
    rp.deliver(caf::make_error(messages::errc::state_unavailable, opened.error().to_string()));
    self->quit();
    co_return;
  }
  st.run = std::move(*opened);
  auto& run = *st.run;
  if (auto row = run.write_start_row(); !row) {
    auto v = run.fail_before_start(std::string{runtime::work_log_failure_class}, "work-log",
                                   row.to_string());
    finish(self, rp, v);
    co_return;
  }
  auto watched = watch_begin(self, req.timing.spawn_timeout_ms);
  co_await watched;
  if (st.cancel_requested) {
    auto v = run.fail_before_start("cancelled", "caller-cancel", "cancelled before start");
    finish(self, rp, v);
    co_return;
  }
  if (run.kind() == runtime::adapter_kind::pi)
    start_watcher(self, req.timing);
  messages::spawn_process spawn;
  spawn.argv = run.argv();
  spawn.cwd = req.workspace;
  spawn.env_additions = req.env_additions;
  spawn.marker = run.marker();
  spawn.line_cap = req.line_cap;
  spawn.flow_window = runtime::attempt_flow_window;
  if (kept) {
    spawn.keeper = st.cfg.keeper;
    spawn.attempt_dir = run.attempt_dir().string();
    spawn.grace_ms = req.timing.terminate_grace_ms;
    spawn.lease_file = st.cfg.keeper_lease_file;
    spawn.lease_ms = st.cfg.keeper_lease_ms;
    spawn.keep_alive = req.keep_alive;
  }
  auto ask = core::request(self, st.cfg.process, milliseconds(req.timing.spawn_timeout_ms),
                           std::move(spawn));
  auto spawned = co_await ask;
  runtime::attempt_end end;
  if (!spawned) {
    runtime::mark_launch_failure(end, "process actor refused the spawn: "
                                          + caf::to_string(spawned.error()));
  } else if (spawned->outcome == messages::process_start::launch_failed) {
    runtime::mark_launch_failure(end, spawned->reason);
  } else {
    st.child = spawned->child;
    st.child_running = true;
    if (kept) {
      run.on_keeper_started(spawned->pid, spawned->start_token);
    } else {
      run.on_started(spawned->pid, spawned->start_token);
      watch_agent(self, static_cast<int32_t>(spawned->pid));
    }
    auto followed = follow(self, &end, req.timing);
    co_await followed;
  }
  auto verdict = run.finish(end);
  finish(self, rp, verdict);
}

// An attempt another dispatcher started under its keeper: read back, its
// spool followed from the first line, and ended as any other.
core::task<void> adopt_attempt(self_ptr self, messages::adopt_attempt req,
                               caf::typed_response_promise<messages::attempt_result> rp) {
  auto& st = self->state;
  st.record_lines = st.cfg.trace != nullptr;
  if (st.record_lines)
    st.lines = st.cfg.trace;
  st.write_paths = req.order.write_paths;
  auto setup = to_attempt_setup(req.order, st.cfg);
  if (!setup) {
    rp.deliver(caf::make_error(messages::errc::invalid_request, setup.error().to_string()));
    self->quit();
    co_return;
  }
  auto adopted = runtime::attempt_run::adopt(std::move(*setup), req.locator, *st.cfg.clock);
  if (!adopted) {
    rp.deliver(caf::make_error(messages::errc::state_unavailable, adopted.error().to_string()));
    self->quit();
    co_return;
  }
  st.run = std::move(*adopted);
  auto& run = *st.run;
  if (run.kind() == runtime::adapter_kind::pi)
    start_watcher(self, req.order.timing);
  auto watched = watch_begin(self, req.order.timing.spawn_timeout_ms);
  co_await watched;
  messages::adopt_process follow_keeper;
  follow_keeper.attempt_dir = run.attempt_dir().string();
  follow_keeper.keeper_pid = req.keeper_pid;
  follow_keeper.keeper_start_token = req.keeper_start_token;
  follow_keeper.flow_window = runtime::attempt_flow_window;
  auto ask = core::request(self, st.cfg.process,
                           milliseconds(req.order.timing.spawn_timeout_ms),
                           std::move(follow_keeper));
  auto followed_keeper = co_await ask;
  runtime::attempt_end end;
  if (!followed_keeper) {
    end.launch = runtime::launch_outcome::failed_to_start;
    end.launch_error = "process actor refused to follow the keeper: " +
                       caf::to_string(followed_keeper.error());
  } else {
    st.child = followed_keeper->child;
    st.child_running = true;
    if (st.cancel_requested)
      terminate_child(self, req.order.timing.terminate_grace_ms);
    auto followed = follow(self, &end, req.order.timing);
    co_await followed;
  }
  auto verdict = run.finish(end);
  finish(self, rp, verdict);
}

} // namespace

attempt_state::attempt_state() = default;

attempt_state::~attempt_state() {
  if (child_running && cfg.process)
    caf::anon_send(cfg.process, messages::terminate_process{child, -1});
  if (watched && cfg.claims && run)
    caf::anon_send(cfg.claims, messages::attempt_watch_end{run->identity(), cfg.clock->now()});
  if (watcher)
    caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
}

attempt_config make_attempt_config(messages::process_actor process,
                                   std::shared_ptr<runtime::trace_writer> trace) {
  attempt_config cfg;
  cfg.process = std::move(process);
  cfg.trace = std::move(trace);
  cfg.clock = std::make_shared<runtime::system_clock>();
  cfg.dispatcher_pid = static_cast<int>(::getpid());
  if (auto token = runtime::process_start_token(cfg.dispatcher_pid))
    cfg.dispatcher_start_token = *token;
  if (auto keeper = runtime::find_keeper_binary())
    cfg.keeper = keeper->string();
  return cfg;
}

messages::attempt_actor::behavior_type attempt_impl(self_ptr self, attempt_config cfg) {
  self->state.cfg = std::move(cfg);
  self->state.coro.bind(self);
  return {
    [self](messages::start_attempt& req) -> caf::result<messages::attempt_result> {
      if (self->state.started)
        return caf::make_error(messages::errc::invalid_request, "attempt already started");
      self->state.started = true;
      auto rp = self->make_response_promise<messages::attempt_result>();
      auto body = run_attempt(self, std::move(req), rp);
      self->state.coro.start(std::move(body));
      return rp;
    },
    [self](messages::adopt_attempt& req) -> caf::result<messages::attempt_result> {
      if (self->state.started)
        return caf::make_error(messages::errc::invalid_request, "attempt already started");
      self->state.started = true;
      auto rp = self->make_response_promise<messages::attempt_result>();
      auto body = adopt_attempt(self, std::move(req), rp);
      self->state.coro.start(std::move(body));
      return rp;
    },
    [self](messages::cancel_attempt&) {
      self->state.cancel_requested = true;
      self->state.events.push(attempt_cancel_signal{});
    },
    [self](messages::process_line& line) { self->state.events.push(std::move(line)); },
    [](messages::process_silence&) {
      // Silence is measured by the attempt's own timers.
    },
    [self](messages::process_exit& exit) { self->state.events.push(std::move(exit)); },
    [self](messages::process_agent_started& agent) {
      self->state.events.push(std::move(agent));
    },
    [self](messages::pi_phase_changed& changed) {
      auto& st = self->state;
      if (st.run && st.record_lines) {
        const auto& r = changed.report;
        st.lines->edge(runtime::trace_kinds::attempt_phase,
                           runtime::pi_phase_body(st.run->identity(), r.session_file, r.phase,
                                                  r.reason, r.pending_tool_call_ids));
      }
      if (st.run)
        st.run->on_pi_phase(changed.report.session_file, changed.report.phase,
                            changed.report.reason, changed.report.pending_tool_call_ids);
    },
    self->state.coro.wake_handler(),
  };
}

} // namespace ad::actors
