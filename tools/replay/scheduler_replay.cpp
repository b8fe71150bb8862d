#include "tools/replay/scheduler_replay.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "actors/scheduler/scheduler_actor.hpp"
#include "actors/scheduler/scheduler_io.hpp"
#include "runtime/core/exception_text.hpp"
#include "runtime/records/decision_records.hpp"
#include "runtime/records/scan_records.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/schedule/admission_json.hpp"
#include "runtime/state/change.hpp"
#include "runtime/trace/trace_writer.hpp"
#include "tools/replay/deterministic_system.hpp"
#include "tools/replay/edge_match.hpp"

namespace ad::tools {

namespace {

namespace kinds = runtime::trace_kinds;
using runtime::json;
using decisions = std::vector<runtime::replayed_decision>;

// Tells the stand-in to deliver an answer replay prepared.
using answer_atom = caf::atom_constant<caf::atom("rp_answer")>;

// The kinds of edge the scheduler actor records.
constexpr std::array<std::string_view, 9> scheduler_edges{
  kinds::scheduler_inbound,   kinds::scheduler_scan,  kinds::scheduler_liveness,
  kinds::scheduler_sightings, kinds::scheduler_admission, kinds::scheduler_reconcile,
  kinds::scheduler_group,     kinds::scheduler_retry_blocked, kinds::run_end};

bool is_scheduler_edge(std::string_view kind) {
  return std::find(scheduler_edges.begin(), scheduler_edges.end(), kind) != scheduler_edges.end();
}

// The recorded scheduler and what the replayed one has done so far.
// cursor(): how many edges the replayed actor recorded, i.e. the index of
// the recorded edge it is about to reach.
struct feed {
  std::vector<const runtime::trace_record*> edges;
  std::vector<json> bodies; // expanded to the replay roots
  bool ended = false;       // the trace holds the run's end (run.end)
  std::shared_ptr<runtime::trace_writer> mem;
  std::shared_ptr<runtime::manual_clock> clk;
  caf::actor env;
  std::optional<caf::response_promise> subscribe, apply, quota;
  std::function<void()> answer_now; // run by the stand-in (a promise is kept by its actor)
  bool finished = false;      // the waiter got run_finished
  std::string problem;        // the first read the trace could not answer
  std::size_t problem_at = 0; // the cursor then

  std::size_t cursor() const { return mem->kept_edges(); }

  // The body of the next recorded edge of `kind` (that `match` accepts)
  // that the message being handled recorded: at or after the cursor, before
  // the next scheduler.inbound. Null when there is none.
  const json* ahead(std::string_view kind,
                    const std::function<bool(const json&)>& match = {}) const {
    searched_to_the_end = false;
    for (auto i = cursor(); i < edges.size(); ++i) {
      if (edges[i]->kind == kinds::scheduler_inbound)
        return nullptr;
      if (edges[i]->kind == kind && (!match || match(bodies[i])))
        return &bodies[i];
    }
    searched_to_the_end = true;
    return nullptr;
  }
  // The last ahead() found nothing because the trace ended first.
  mutable bool searched_to_the_end = false;

  // Whether the trace has the scheduler wait for `answer` ("snapshot",
  // "applied" or "quota") next: its requests are answered one at a time, in
  // the order it made them. Else fails naming what the trace has instead;
  // in a trace cut off before any further answer, the request stays open.
  bool answers_next(std::string_view answer) {
    for (auto i = cursor(); i < edges.size(); ++i) {
      if (edges[i]->kind != kinds::scheduler_inbound)
        continue;
      auto message = bodies[i].value("message", "");
      if (message != "snapshot" && message != "applied" && message != "quota")
        continue;
      if (message == answer)
        return true;
      fail("the scheduler waits for " + request_of(answer) + " where the trace has it wait for " +
           request_of(message));
      return false;
    }
    if (ended)
      fail("the scheduler waits for " + request_of(answer) + ", which the trace does not hold");
    return !ended;
  }

  static std::string request_of(std::string_view answer) {
    if (answer == "snapshot")
      return "the state it subscribes to";
    if (answer == "applied")
      return "its changes to be made durable";
    return "an admission quota batch";
  }

  // A read the trace could not answer. In a run the trace cut off, a read
  // whose record would have come after the cut counts as past the cut.
  void fail(std::string what) {
    if (problem.empty()) {
      problem = std::move(what);
      problem_at = !ended && searched_to_the_end ? edges.size() : cursor();
      searched_to_the_end = false;
    }
  }
};

std::vector<std::filesystem::path> paths_of(const std::vector<std::string>& v) {
  return {v.begin(), v.end()};
}

// Runs one read of recorded bodies for the replayed actor: a body of the
// wrong shape fails the replay with `what` and the reason instead of
// throwing inside the actor (fallback is returned then).
template <class R, class F>
R guarded(feed& f, std::string_view what, R fallback, F&& read) {
  try {
    return read();
  } catch (const std::exception& e) {
    f.fail(std::string(what) + ": " + runtime::exception_text(e));
    return fallback;
  }
}

// The scan as scheduler.scan recorded it, kept up to date edge by edge;
// the completed folders of a predecessor as the admission ahead saw them.
class recorded_scan final : public runtime::task_scan_view {
public:
  recorded_scan(std::shared_ptr<feed> f, std::filesystem::path root)
      : f_(std::move(f)), root_(std::move(root)) {}

  const std::filesystem::path& task_root() const override { return root_; }
  const std::map<std::string, runtime::scanned_task>& tasks() const override { return tasks_; }

  std::vector<std::filesystem::path> completed_folders(
    std::string_view group, std::string_view predecessor) const override {
    return guarded(*f_, "scheduler.admission", std::vector<std::filesystem::path>{},
                   [&] { return completed_folders_of(group, predecessor); });
  }

private:
  std::vector<std::filesystem::path> completed_folders_of(std::string_view group,
                                                          std::string_view predecessor) const {
    const json* body = f_->ahead(kinds::scheduler_admission);
    if (!body) {
      f_->fail("the completed folders of " + std::string(group) + "/" + std::string(predecessor) +
               " were looked up with no scheduler.admission ahead");
      return {};
    }
    if (body != decoded_body_) {
      auto in = runtime::admission_input_from_json(*body);
      if (!in.is_ok()) {
        f_->fail(in.error().message());
        return {};
      }
      decoded_ = std::move(*in);
      decoded_body_ = body;
    }
    for (const auto& v : decoded_.tasks)
      if (v.group == group)
        for (const auto& p : v.predecessors)
          if (runtime::two_digit(p.index) == predecessor)
            return paths_of(p.complete_matches);
    return {};
  }

public:
  // Applies one scheduler.scan body; its error, as the refresh returned it.
  runtime::result<runtime::scan_refresh> apply(const json& body) {
    if (body.contains("error"))
      return runtime::status::io_error(body["error"].is_string() ? body["error"].get<std::string>()
                                                                  : body["error"].dump());
    try {
      runtime::scan_refresh out;
      out.full = runtime::json_member<bool>(body, "full");
      out.changed = runtime::json_member<std::vector<std::string>>(body, "changed");
      std::map<std::string, runtime::scanned_task> read;
      for (const auto& t : runtime::json_array_member(body, "tasks")) {
        auto task = runtime::scanned_task_from_json(t);
        if (!task.is_ok())
          return task.error().with_context("scheduler.scan");
        read.emplace(task->name, std::move(*task));
      }
      if (out.full)
        tasks_.clear();
      else
        for (const auto& name : out.changed)
          tasks_.erase(name);
      for (auto& [name, t] : read)
        tasks_.insert_or_assign(name, std::move(t));
      return out;
    } catch (const std::exception& e) {
      return runtime::status::invalid_argument(std::string("scheduler.scan: ") + runtime::exception_text(e));
    }
  }

private:
  std::shared_ptr<feed> f_;
  std::filesystem::path root_;
  std::map<std::string, runtime::scanned_task> tasks_;
  mutable const json* decoded_body_ = nullptr;
  mutable runtime::admission_input decoded_;
};

// What the scheduler reads, from the trace; what it starts, the stand-in.
class recorded_scheduler_io final : public actors::scheduler_io {
public:
  recorded_scheduler_io(std::shared_ptr<feed> f, std::filesystem::path task_root)
      : f_(f), scan_(f, std::move(task_root)) {}

  runtime::result<runtime::scan_refresh> refresh_scan(
    const std::vector<std::filesystem::path>&) override {
    const json* body = f_->ahead(kinds::scheduler_scan);
    if (!body) {
      f_->fail("a pass scanned the workspace with no scheduler.scan ahead");
      return runtime::status::internal("replay: no scheduler.scan ahead");
    }
    auto out = scan_.apply(*body);
    if (!out.is_ok() && !body->contains("error"))
      f_->fail(out.error().message());
    return out;
  }

  const runtime::task_scan_view& scan() const override { return scan_; }

  std::vector<std::filesystem::path> archived_task_folders(const std::string& task) const override {
    return guarded(*f_, "the archive folders of " + task, std::vector<std::filesystem::path>{},
                   [&] { return archived_folders_of(task); });
  }

  std::vector<std::filesystem::path> archived_folders_of(const std::string& task) const {
    if (const json* r = f_->ahead(kinds::scheduler_reconcile, [&](const json& b) {
          return b.contains("archives") && b["archives"].contains(task);
        }))
      return paths_of((*r)["archives"][task].get<std::vector<std::string>>());
    const json* s = f_->ahead(kinds::scheduler_sightings, [&](const json& b) {
      if (!b.contains("tasks") || !b["tasks"].is_array())
        return false;
      const auto& tasks = b["tasks"];
      return std::any_of(tasks.begin(), tasks.end(),
                         [&](const json& t) { return t.value("task", "") == task; });
    });
    if (!s) {
      f_->fail("the archive folders of " + task +
               " were looked up with no scheduler.reconcile or scheduler.sightings naming it "
               "ahead");
      return {};
    }
    for (const auto& t : (*s)["tasks"])
      if (t.value("task", "") == task)
        return paths_of(t.value("archive_baseline", std::vector<std::string>()));
    return {};
  }

  actors::work_log_move archive_work_log(const std::string& group) override {
    return guarded(*f_, "scheduler.group", actors::work_log_move{},
                   [&] { return work_log_move_of(group); });
  }

  actors::work_log_move work_log_move_of(const std::string& group) const {
    const json* g = f_->ahead(kinds::scheduler_group,
                              [&](const json& b) { return b.value("scope", "") == group; });
    if (!g || !g->contains("archive")) {
      f_->fail("the work log of " + group + " was moved with no scheduler.group ahead");
      return {};
    }
    const auto& a = (*g)["archive"];
    return {a.value("ok", false), a.value("not_found", false), a.value("error", "")};
  }

  void remove_attempt_logs(const std::string&) override {}

  std::map<std::string, bool> probe_work_logs(const std::vector<std::string>& tasks) override {
    return guarded(*f_, "scheduler.work_logs", std::map<std::string, bool>{},
                   [&] { return work_logs_of(tasks); });
  }

  std::map<std::string, bool> work_logs_of(const std::vector<std::string>& tasks) const {
    const json* w = f_->ahead(kinds::scheduler_work_logs);
    std::map<std::string, bool> out;
    if (!w || !w->contains("writable") || !(*w)["writable"].is_object()) {
      f_->fail("work logs were probed with no scheduler.work_logs ahead");
      return out;
    }
    for (const auto& t : tasks) {
      const auto& rec = (*w)["writable"];
      out[t] = rec.contains(t) && rec[t].is_boolean() && rec[t].get<bool>();
    }
    return out;
  }

  std::vector<runtime::active_stage_reading> read_active_stages(
    const runtime::state_model&) override {
    const json* l = f_->ahead(kinds::scheduler_liveness);
    if (!l) {
      f_->fail("active stages were probed with no scheduler.liveness ahead");
      return {};
    }
    auto readings = runtime::active_stage_readings_from_json(*l);
    if (!readings.is_ok()) {
      f_->fail(readings.error().message());
      return {};
    }
    return std::move(*readings);
  }

  messages::task_actor start_task(messages::scheduler_actor::pointer,
                                  const actors::run_context_ptr&,
                                  const actors::task_spec&) override {
    return caf::actor_cast<messages::task_actor>(f_->env);
  }

  messages::quota_prober_actor start_quota_prober(messages::scheduler_actor::pointer) override {
    return caf::actor_cast<messages::quota_prober_actor>(f_->env);
  }

private:
  std::shared_ptr<feed> f_;
  recorded_scan scan_;
};

// The state store, supervisor, quota prober, task actors and waiter: holds
// each request open until replay delivers its recorded answer.
caf::behavior stand_in(caf::event_based_actor* self, std::shared_ptr<feed> f) {
  return {
    [self, f](messages::subscribe_state_changes&) -> caf::result<messages::state_snapshot_reply> {
      f->answers_next("snapshot");
      f->subscribe = self->make_response_promise();
      return caf::delegated<messages::state_snapshot_reply>{};
    },
    [self, f](messages::apply_state_changes&) -> caf::result<messages::state_changes_applied> {
      f->answers_next("applied");
      f->apply = self->make_response_promise();
      return caf::delegated<messages::state_changes_applied>{};
    },
    [self, f](messages::run_quota_probes&) -> caf::result<messages::quota_probes_done> {
      f->answers_next("quota");
      f->quota = self->make_response_promise();
      return caf::delegated<messages::quota_probes_done>{};
    },
    [](messages::quota_batch_taken&) {},
    [](messages::stop_run&) {},
    [](messages::task_wake_atom) {},
    [f](messages::run_finished&) { f->finished = true; },
    [f](answer_atom) {
      if (auto answer = std::exchange(f->answer_now, nullptr))
        answer();
    },
  };
}

// The scheduler actor of one trace, replayed once, and per recorded edge
// what it decided there.
class scheduler_actor_replay {
public:
  scheduler_actor_replay(const runtime::trace_file& trace, const actors::run_context& base,
                         const runtime::trace_paths& roots)
      : base_(base), roots_(roots), f_(std::make_shared<feed>()) {
    for (const auto& r : trace.records) {
      if (r.dir == runtime::trace_direction::decision) {
        by_cause_[r.cause].push_back(&r);
        continue;
      }
      if (!is_scheduler_edge(r.kind))
        continue;
      f_->edges.push_back(&r);
      f_->bodies.push_back(roots_.expand(r.body));
      f_->ended = f_->ended || r.kind == kinds::run_end;
    }
  }

  runtime::result<decisions> at(int64_t seq, const std::vector<std::string>& wanted) {
    if (!done_) {
      done_ = true;
      run();
    }
    if (auto e = errors_.find(seq); e != errors_.end())
      return runtime::status::internal(e->second);
    // An edge of a run the trace cut off whose decisions the replay made
    // past the trace's last scheduler edge.
    return decisions_at(decided_, by_cause_, seq, wanted, past_the_cut_.count(seq) != 0);
  }

private:
  // Delivers the recorded inbound message at edge index i; false when the
  // replayed actor has no request open that it answers.
  bool deliver(const messages::scheduler_actor& actor, std::size_t i) {
    auto& f = *f_;
    const auto& b = f.bodies[i];
    if (!b.is_object() || !b.contains("now") || !b["now"].is_number_integer() ||
        !b.contains("message") || !b["message"].is_string() ||
        (b.contains("error") && !b["error"].is_string())) {
      f.fail("scheduler.inbound: needs an integer \"now\", a string \"message\" and, when "
             "present, a string \"error\"");
      return false;
    }
    f.clk->set(b["now"].get<int64_t>());
    auto message = b["message"].get<std::string>();
    std::optional<caf::error> error;
    if (b.contains("error"))
      error = caf::error(1, replay_error_category, caf::make_message(b["error"].get<std::string>()));
    auto answer = [&](std::optional<caf::response_promise>& held, auto reply) {
      if (!held) {
        f.fail("the trace answers a request (" + message + ") the replayed scheduler did not make");
        return false;
      }
      f.answer_now = [promise = std::move(*held), error, reply]() mutable {
        if (error)
          promise.deliver(*error);
        else
          promise.deliver(std::move(reply));
      };
      held.reset();
      caf::anon_send(f.env, answer_atom::value);
      return true;
    };
    try {
      if (message == "poll") {
        caf::anon_send(actor, messages::sch_poll_atom::value);
      } else if (message == "shutdown") {
        caf::anon_send(actor, messages::shutdown_requested{});
      } else if (message == "task_ended") {
        caf::anon_send(actor, messages::task_ended{
                                runtime::json_member<std::string>(b, "task"),
                                runtime::json_member<std::string>(b, "stage"),
                                runtime::json_member<std::string>(b, "outcome"),
                                runtime::json_member<std::string>(b, "reason"),
                                runtime::json_member<int64_t>(b, "pause_ms")});
      } else if (message == "claim_violation") {
        messages::claim_violation_noted v;
        v.time = runtime::json_member<int64_t>(b, "time");
        v.task = runtime::json_member<std::string>(b, "task");
        v.attempt = runtime::json_member<std::string>(b, "attempt");
        v.path = runtime::json_member<std::string>(b, "path");
        for (const auto& l : runtime::json_array_member(b, "live"))
          v.live.push_back({runtime::json_member<std::string>(l, "path"),
                            runtime::json_member<std::string>(l, "attempt"),
                            runtime::json_member<std::string>(l, "task")});
        v.stop_task = runtime::json_member<std::string>(b, "stop_task");
        v.reason = runtime::json_member<std::string>(b, "reason");
        caf::anon_send(actor, std::move(v));
      } else if (message == "violation_ended") {
        caf::anon_send(actor, messages::violating_attempt_ended{
                                runtime::json_member<int64_t>(b, "time"),
                                runtime::json_member<std::string>(b, "attempt")});
      } else if (message == "published") {
        auto changes = runtime::changes_from_json_text(
          runtime::dump_json(runtime::json_array_member(b, "changes")), "scheduler.inbound");
        if (!changes.is_ok()) {
          f.fail(changes.error().message());
          return false;
        }
        caf::anon_send(actor, messages::state_changes_published{
                                runtime::json_member<uint64_t>(b, "seq"), std::move(*changes)});
      } else if (message == "snapshot") {
        messages::state_snapshot_reply reply;
        if (!error) {
          auto state = runtime::state_from_json(b.at("state"), "scheduler.inbound snapshot state");
          if (!state.is_ok()) {
            f.fail(state.error().message());
            return false;
          }
          reply = {runtime::json_member<uint64_t>(b, "seq"), std::move(*state)};
        }
        return answer(f.subscribe, std::move(reply));
      } else if (message == "applied") {
        return answer(f.apply, messages::state_changes_applied{
                                 error ? 0 : runtime::json_member<uint64_t>(b, "seq"), {}});
      } else if (message == "quota") {
        messages::quota_probes_done reply;
        if (!error) {
          auto snap = runtime::probe_snapshot_from_json(b.at("snapshot"));
          if (!snap.is_ok()) {
            f.fail("scheduler.inbound quota: " + snap.error().message());
            return false;
          }
          reply.snapshot = std::move(*snap);
        }
        return answer(f.quota, std::move(reply));
      } else {
        f.fail("the replayed scheduler is idle where the trace has it handle \"" + message + "\"");
        return false;
      }
    } catch (const std::exception& e) {
      f.fail(std::string("scheduler.inbound: ") + runtime::exception_text(e));
      return false;
    }
    return true;
  }

  void run() {
    auto& f = *f_;
    deterministic_config cfg;
    caf::actor_system sys{cfg};
    auto& sched = test_scheduler(sys);
    f.mem = runtime::trace_writer::in_memory(roots_);
    f.clk = std::make_shared<runtime::manual_clock>(0);
    if (!f.bodies.empty() && f.bodies.front().contains("now") &&
        f.bodies.front()["now"].is_number_integer())
      f.clk->set(f.bodies.front()["now"].get<int64_t>());
    auto ctx = std::make_shared<actors::run_context>(base_);
    f.env = sys.spawn(stand_in, f_);
    ctx->store = caf::actor_cast<messages::state_store_actor>(f.env);
    ctx->supervisor = caf::actor_cast<messages::supervisor_actor>(f.env);
    ctx->host = caf::actor_cast<messages::attempt_host_actor>(f.env);
    ctx->out = nullptr;
    ctx->trace = f.mem;
    ctx->clk = f.clk;
    auto task_root = std::filesystem::path(base_.task_root);
    std::weak_ptr<feed> weak = f_;
    ctx->scheduler_io_factory = [weak, task_root](const actors::run_context&) {
      return std::make_unique<recorded_scheduler_io>(weak.lock(), task_root);
    };
    auto actor = sys.spawn(actors::scheduler_impl, actors::run_context_ptr(ctx),
                           caf::actor_cast<messages::run_waiter_actor>(f.env));
    // Run until the actor is idle, then deliver the message the trace has
    // it handle next; stop at the run's end, the trace's end, or a message
    // the replayed actor cannot take.
    while (true) {
      sched.run();
      if (f.finished || !f.problem.empty())
        break;
      auto i = f.cursor();
      if (i >= f.edges.size() || f.edges[i]->kind != kinds::scheduler_inbound)
        break;
      if (!deliver(actor, i))
        break;
    }
    caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(f.env, caf::exit_reason::user_shutdown);
    sched.run();
    collect();
    f.subscribe.reset();
    f.apply.reset();
    f.quota.reset();
    f.answer_now = nullptr;
    f.env = nullptr;
  }

  // Maps the replayed actor's n-th edge to the recorded n-th scheduler
  // edge and files the decisions it caused there, up to the first edge of
  // another kind (where the difference is reported).
  void collect() {
    const auto& f = *f_;
    auto kept = f.mem->kept_records();
    auto m = match_edges(kept, f.edges);
    const auto split = m.split;
    std::size_t edges_before = 0;
    for (const auto& r : kept) {
      if (r.dir == runtime::trace_direction::edge) {
        ++edges_before;
        continue;
      }
      if (r.cause == 0)
        continue;
      if (auto i = m.index.find(r.cause); i != m.index.end() && i->second < split) {
        auto seq = f.edges[i->second]->seq;
        decided_[seq].push_back({r.kind, r.body});
        if (!f.ended && edges_before >= f.edges.size())
          past_the_cut_.insert(seq);
      }
    }
    // A run the trace cut off may go on in replay: only a different edge
    // there is a difference, not one more.
    bool differs = f.ended ? split < f.edges.size() || split < m.replayed.size()
                           : split < m.replayed.size() && split < f.edges.size();
    if (f.edges.empty())
      return;
    // A read past the cut of a run the trace cut off asks for what the
    // trace ends before: not a difference.
    bool after_the_cut = !f.ended && f.problem_at >= f.edges.size();
    if (!f.problem.empty() && f.problem_at <= split && !after_the_cut)
      fail_from(f.problem_at, "scheduler replay: " + f.problem);
    else if (differs)
      fail_from(split, "scheduler replay: the scheduler " + m.difference());
  }

  // Replay stopped matching the trace at edge index i: every edge from
  // there on (else the last one) reports why, so whichever of their
  // decisions was recorded first shows it.
  void fail_from(std::size_t i, const std::string& why) {
    const auto& edges = f_->edges;
    bool any = false;
    for (auto j = i; j < edges.size(); ++j)
      if (is_scheduler_edge(edges[j]->kind)) {
        errors_.emplace(edges[j]->seq, why);
        any = true;
      }
    for (auto j = edges.size(); !any && j-- > 0;)
      if (is_scheduler_edge(edges[j]->kind)) {
        errors_.emplace(edges[j]->seq, why);
        any = true;
      }
  }

  actors::run_context base_;
  const runtime::trace_paths& roots_;
  std::shared_ptr<feed> f_;
  records_by_cause by_cause_;
  bool done_ = false;
  decisions_by_edge decided_;
  std::set<int64_t> past_the_cut_; // edges with decisions made past the trace's cut
  std::map<int64_t, std::string> errors_;
};

} // namespace

bool scheduler_replayable(const runtime::trace_file& trace) {
  return std::any_of(trace.records.begin(), trace.records.end(), [](const auto& r) {
    return r.dir == runtime::trace_direction::edge && r.kind == kinds::scheduler_inbound;
  });
}

void add_scheduler_actor_replay(runtime::replay_handlers& handlers,
                                const runtime::trace_file& trace, const actors::run_context& base,
                                const runtime::trace_paths& roots) {
  auto replay = std::make_shared<scheduler_actor_replay>(trace, base, roots);
  auto by_actor = [&handlers, replay](std::string_view edge, std::vector<std::string> produces) {
    handlers[std::string(edge)] = {
      produces, nullptr, [replay, produces](int64_t seq, const json&) {
        return replay->at(seq, produces);
      }};
  };
  by_actor(kinds::scheduler_inbound,
           {std::string(kinds::scheduler_startup), std::string(kinds::scheduler_pass)});
  by_actor(kinds::scheduler_scan, {});
  by_actor(kinds::scheduler_liveness, {std::string(kinds::scheduler_active_stages)});
  by_actor(kinds::scheduler_sightings, {std::string(kinds::scheduler_sighted)});
  by_actor(kinds::scheduler_admission, {std::string(kinds::scheduler_admitted)});
  by_actor(kinds::scheduler_reconcile, {std::string(kinds::scheduler_reconciled)});
  by_actor(kinds::scheduler_group, {std::string(kinds::scheduler_group_close)});
  by_actor(kinds::scheduler_retry_blocked, {std::string(kinds::scheduler_retry_cleared)});
  by_actor(kinds::run_end, {std::string(kinds::run_exit)});
}

} // namespace ad::tools
