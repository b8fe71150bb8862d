#include "tools/replay/task_actor_replay.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "actors/scheduler/task_actor.hpp"
#include "actors/scheduler/task_steps.hpp"
#include "actors/scheduler/trace_points.hpp"
#include "tools/replay/deterministic_system.hpp"
#include "tools/replay/edge_match.hpp"
#include "runtime/replay/decision_records.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/run/attempt_snapshots.hpp"
#include "runtime/state/change.hpp"
#include "runtime/trace/trace_writer.hpp"

namespace ad::tools {

namespace {

namespace kinds = runtime::trace_kinds;
using runtime::json;
using decisions = std::vector<runtime::replayed_decision>;

// The edges whose decisions the replayed task actors make (their handlers
// are added by add_task_actor_replay).
constexpr std::array<std::string_view, 6> actor_edges{
  kinds::task_begin, kinds::task_launch, kinds::attempt_result, kinds::task_stop,
  kinds::task_error, kinds::supervisor_failure};

// The task a recorded edge belongs to ("" for none of a task actor's).
std::string task_of(const runtime::trace_record& r) {
  const auto& b = r.body;
  try {
    if (r.kind == kinds::task_begin || r.kind == kinds::task_launch)
      return b.at("spec").at("name").get<std::string>();
    if (r.kind == kinds::attempt_result || r.kind == kinds::attempt_exit ||
        r.kind == kinds::task_stop || r.kind == kinds::task_wake || r.kind == kinds::task_error)
      return b.at("task").get<std::string>();
    if (r.kind == kinds::supervisor_failure)
      return b.at("request").at("failure").at("task").get<std::string>();
  } catch (const std::exception&) {
  }
  return "";
}

// One task actor's life in the trace: its edges in order, with their
// bodies expanded to the replay roots.
struct lifetime {
  std::string task;
  bool ended = false; // a task.end closed it
  std::vector<const runtime::trace_record*> edges;
  std::vector<json> bodies;
};

// What the stand-ins read while one lifetime replays. cursor(): how many
// edges the replayed actor recorded so far, i.e. the index of the recorded
// edge it is about to reach.
struct feed {
  const lifetime* life = nullptr;
  const std::map<int64_t, std::vector<const runtime::trace_record*>>* by_cause = nullptr;
  std::shared_ptr<runtime::trace_writer> mem;
  std::shared_ptr<runtime::manual_clock> clk;
  messages::task_actor task;
  std::optional<caf::response_promise> held;
  messages::attempt_result held_result;
  bool held_open = false;     // held for good: its answer is past the trace's cut
  std::size_t stops_sent = 0; // task.stop edges already delivered
  bool ended = false;
  std::string problem;        // the first request the lifetime could not answer
  std::size_t problem_at = 0; // the cursor then

  std::size_t cursor() const { return mem->kept_edges(); }

  // The index of the first recorded edge at or after the cursor of one of
  // `wanted` kinds; nullopt when there is none.
  std::optional<std::size_t> next(std::initializer_list<std::string_view> wanted) const {
    for (auto i = cursor(); i < life->edges.size(); ++i)
      if (std::find(wanted.begin(), wanted.end(), life->edges[i]->kind) != wanted.end())
        return i;
    return std::nullopt;
  }

  // Whether the next recorded edge is a task.stop (that saw the task
  // `during` it, when given: "attempt", "waiting" or "busy").
  bool stop_is_next(std::string_view during = {}) const {
    auto i = cursor();
    return i < life->edges.size() && life->edges[i]->kind == kinds::task_stop &&
           (during.empty() || life->bodies[i].value("during", "") == during);
  }

  // The error reply recorded next (a task.error from `peer`), rebuilt so
  // that the replay system renders it as recorded (replay_error_category).
  std::optional<caf::error> error_next(std::string_view peer) const {
    auto i = cursor();
    if (i >= life->edges.size() || life->edges[i]->kind != kinds::task_error ||
        life->bodies[i].value("peer", "") != peer)
      return std::nullopt;
    return caf::error(1, replay_error_category,
                      caf::make_message(life->bodies[i].value("error", std::string())));
  }

  // The clock reads what the next recorded edge read, when it recorded one.
  void set_clock() {
    auto i = cursor();
    if (i < life->bodies.size() && life->bodies[i].contains("now") &&
        life->bodies[i]["now"].is_number_integer())
      clk->set(life->bodies[i]["now"].get<int64_t>());
  }

  caf::error fail(std::string what) {
    if (problem.empty()) {
      problem = what;
      problem_at = cursor();
    }
    return caf::make_error(messages::errc::not_found, std::move(what));
  }

  const json* decision_of(int64_t edge_seq, std::string_view kind) const {
    if (auto it = by_cause->find(edge_seq); it != by_cause->end())
      for (const auto* d : it->second)
        if (d->kind == kind)
          return &d->body;
    return nullptr;
  }
};

// The recorded attempt result at edge index i (its attempt.exit, when just
// before it, becomes the classification the actor records again).
messages::attempt_result recorded_result(const feed& f, std::size_t i) {
  const auto& b = f.life->bodies[i];
  messages::attempt_result r;
  r.identity = b.value("identity", "");
  r.locator_path = b.value("locator", "");
  r.status = b.value("status", "");
  r.exit_code = b.value("exit_code", 0);
  r.failure_class = b.value("failure_class", "");
  r.failure_source = b.value("failure_source", "");
  r.evidence = b.value("evidence", "");
  r.evidence_origin = b.value("evidence_origin", "");
  r.termination_signal = b.value("termination_signal", "");
  r.native_session_path = b.value("native_session_path", "");
  r.has_reset_at = b.value("has_reset_at", false);
  r.reset_at = b.value("reset_at", int64_t{0});
  if (i > 0 && f.life->edges[i - 1]->kind == kinds::attempt_exit) {
    const auto& exit = f.life->bodies[i - 1];
    const auto* verdict = f.decision_of(f.life->edges[i - 1]->seq, kinds::attempt_classified);
    json doc{{"inputs", exit.value("inputs", json::object())},
             {"verdict", verdict ? *verdict : json::object()},
             {"rows", json::array()}};
    r.classification_json = runtime::dump_json(doc);
  }
  return r;
}

// A request nothing recorded ahead answers. In a lifetime the trace cut
// off (the run stopped or crashed before the answer came) it stays open,
// as it was when the trace ended; otherwise the lifetime cannot be
// replayed past it.
template <class T>
caf::result<T> unanswered(caf::event_based_actor* self, feed& f, std::string what) {
  if (f.life->ended)
    return f.fail(std::move(what));
  f.held = self->make_response_promise();
  f.held_open = true;
  return caf::delegated<T>{};
}

caf::behavior stand_in(caf::event_based_actor* self, std::shared_ptr<feed> f) {
  // A stop recorded while the actor waited on an answer reaches it first.
  auto stop_first = [self, f] {
    if (f->stop_is_next("busy") && f->stops_sent <= f->cursor()) {
      f->stops_sent = f->cursor() + 1;
      self->send(f->task, messages::stop_run{"replay"});
    }
  };
  return {
    [self, f, stop_first](
      messages::get_target_cooldowns&) -> caf::result<messages::target_cooldowns_reply> {
      stop_first();
      f->set_clock();
      auto i = f->next({kinds::task_begin});
      if (!i)
        return unanswered<messages::target_cooldowns_reply>(
          self, *f, "cool-downs asked for with no task.begin ahead");
      auto cooldowns =
        runtime::target_cooldowns_from_json(f->life->bodies[*i].value("cooldowns", json::object()));
      if (!cooldowns.is_ok())
        return f->fail("task.begin cooldowns: " + cooldowns.error().message());
      return messages::target_cooldowns_reply{std::move(*cooldowns)};
    },
    [self, f, stop_first](
      messages::get_task_state& m) -> caf::result<messages::task_state_reply> {
      stop_first();
      if (auto err = f->error_next("state store"))
        return std::move(*err);
      f->set_clock();
      auto i = f->next({kinds::task_begin, kinds::task_launch, kinds::attempt_result});
      if (!i || !f->life->bodies[*i].contains("task_state"))
        return unanswered<messages::task_state_reply>(
          self, *f, "task state asked for with no recorded reading ahead");
      auto st = runtime::task_from_json_text(runtime::dump_json(f->life->bodies[*i]["task_state"]),
                                             "recorded task_state");
      if (!st.is_ok())
        return f->fail(st.error().message());
      return messages::task_state_reply{m.task, true, std::move(*st)};
    },
    [f, stop_first](
      messages::apply_state_changes&) -> caf::result<messages::state_changes_applied> {
      stop_first();
      if (auto err = f->error_next("state store"))
        return std::move(*err);
      return messages::state_changes_applied{};
    },
    [self, f, stop_first](
      messages::supervise_failure& asked) -> caf::result<messages::supervision_decided> {
      stop_first();
      if (auto err = f->error_next("supervisor"))
        return std::move(*err);
      auto i = f->next({kinds::supervisor_failure});
      if (!i)
        return unanswered<messages::supervision_decided>(
          self, *f, "the supervisor was asked with no supervisor.failure ahead");
      const auto* step = f->decision_of(f->life->edges[*i]->seq, kinds::supervisor_step);
      if (!step) // in a lifetime the trace cut off, the step came after the cut
        return unanswered<messages::supervision_decided>(
          self, *f, "supervisor.failure without its supervisor.step");
      // The changes come back as the supervisor sent them: the actor makes
      // them durable (a request, which a stop can find open) before it acts.
      auto changes = runtime::changes_from_json_text(
        runtime::dump_json(step->value("changes", json::array())), "supervisor.step changes");
      if (!changes.is_ok())
        return f->fail(changes.error().message());
      auto next = runtime::next_step_from_json(step->value("detail", json::object()));
      if (!next.is_ok())
        return f->fail(next.error().message());
      // The supervisor records this edge in the run; here it stands in.
      auto seq = f->mem->edge(kinds::supervisor_failure, json::object());
      f->mem->note_cause(asked.request.failure.attempt_id, seq);
      messages::supervision_decided d;
      d.step = std::move(*next);
      d.changes = std::move(*changes);
      return d;
    },
    [self, f](messages::start_attempt& req) -> caf::result<messages::attempt_result> {
      if (auto err = f->error_next("attempt"))
        return std::move(*err);
      auto i = f->next({kinds::attempt_result});
      if (!i) {
        // Cut while it ran: a stop recorded before the cut still reaches it.
        if (!f->life->ended && f->stop_is_next("attempt") && f->stops_sent <= f->cursor()) {
          f->stops_sent = f->cursor() + 1;
          self->send(f->task, messages::stop_run{"replay"});
        }
        return unanswered<messages::attempt_result>(
          self, *f, "an attempt was started with no attempt.result ahead");
      }
      auto result = recorded_result(*f, *i);
      auto identity =
        runtime::make_attempt_identity(req.task, req.plan_number, req.role, req.attempt);
      if (result.identity != identity)
        return f->fail("attempt " + identity + " started where " + result.identity +
                       " was recorded");
      if (!f->stop_is_next("attempt") || f->stops_sent > f->cursor())
        return result;
      // Stopped while it runs: the result comes once the actor cancels it.
      f->held = self->make_response_promise();
      f->held_result = std::move(result);
      f->stops_sent = f->cursor() + 1;
      self->send(f->task, messages::stop_run{"replay"});
      return caf::delegated<messages::attempt_result>{};
    },
    [f](messages::cancel_attempt&) {
      if (f->held && !f->held_open) {
        f->held->deliver(f->held_result);
        f->held.reset();
      }
    },
    [f](messages::task_ended&) { f->ended = true; },
  };
}

// Reads the trace where the task actor would read files.
class recorded_io final : public actors::task_io {
public:
  explicit recorded_io(std::shared_ptr<feed> f) : f_(std::move(f)) {}

  void capture_review_baseline(actors::task_actor_state& s) const override {
    s.review_seen.clear(); // the recorded reading carries the baseline
    s.review_signature.clear();
  }
  actors::success_reading read_after_success(const actors::task_actor_state& s,
                                             const messages::attempt_result&) const override {
    if (auto i = f_->next({kinds::attempt_result})) {
      const auto& body = f_->life->bodies[*i];
      if (body.contains("observed"))
        if (auto r = actors::success_reading_from_json(s.spec.stage, body["observed"]); r.is_ok())
          return std::move(*r);
    }
    return {};
  }
  std::vector<runtime::file_snapshot> current_write_set(
    const actors::task_actor_state&) const override {
    return {};
  }
  runtime::state_change snapshot_before(const actors::task_actor_state& s,
                                        const std::string& identity) const override {
    return runtime::write_set_change(s.spec.name, identity, runtime::snapshot_phase::before, {});
  }
  void remove_attempt_logs(const actors::task_actor_state&) const override {}
  // The supervisor's recorded request carries what was found; the replayed
  // request is not compared.
  std::vector<runtime::named_file> named_files(const runtime::named_path_query&) const override {
    return {};
  }

private:
  std::shared_ptr<feed> f_;
};

// Every lifetime of a trace and, per recorded edge, what replay decided.
class task_actor_replay {
public:
  task_actor_replay(const runtime::trace_file& trace, const actors::run_context& base,
                    const runtime::trace_paths& roots)
      : base_(base), roots_(roots) {
    std::map<std::string, std::size_t> open; // task -> lifetime index
    for (const auto& r : trace.records) {
      if (r.dir == runtime::trace_direction::decision) {
        by_cause_[r.cause].push_back(&r);
        if (r.kind == kinds::task_end && r.body.contains("task") && r.body["task"].is_string())
          if (auto it = open.find(r.body["task"].get<std::string>()); it != open.end()) {
            lives_[it->second].ended = true;
            open.erase(it);
          }
        continue;
      }
      auto task = task_of(r);
      if (task.empty())
        continue;
      auto it = open.find(task);
      if (it == open.end()) {
        if (r.kind != kinds::task_begin)
          continue;
        it = open.emplace(task, lives_.size()).first;
        lives_.push_back({task, false, {}, {}});
      }
      auto& life = lives_[it->second];
      life.edges.push_back(&r);
      life.bodies.push_back(roots_.expand(r.body));
      life_of_[r.seq] = it->second;
    }
  }

  // The decisions replay makes at the recorded edge `seq`, of the kinds in
  // `wanted`; an error when the actor could not be driven to it.
  runtime::result<decisions> at(int64_t seq, const std::vector<std::string>& wanted) {
    auto l = life_of_.find(seq);
    if (l == life_of_.end())
      return runtime::status::invalid_argument("task actor replay: edge " + std::to_string(seq) +
                                               " belongs to no task actor's lifetime");
    if (!done_.count(l->second))
      run(l->second);
    if (auto e = errors_.find(seq); e != errors_.end())
      return runtime::status::internal(e->second);
    // The last edge of a lifetime the trace cut off: what the actor decided
    // there after the cut (its decisions wait on a request) is not in the
    // trace.
    const auto& life = lives_[l->second];
    return decisions_at(decided_, by_cause_, seq, wanted,
                        !life.ended && life.edges.back()->seq == seq);
  }

private:
  void run(std::size_t index) {
    done_.insert(index);
    const auto& life = lives_[index];
    auto spec = actors::task_spec_from_json(life.bodies.front().at("spec"));
    if (!spec.is_ok()) {
      errors_[life.edges.front()->seq] = "task actor replay: " + spec.error().message();
      return;
    }
    deterministic_config cfg;
    caf::actor_system sys{cfg};
    auto& sched = test_scheduler(sys);
    auto f = std::make_shared<feed>();
    f->life = &life;
    f->by_cause = &by_cause_;
    f->mem = runtime::trace_writer::in_memory(roots_);
    f->clk = std::make_shared<runtime::manual_clock>(0);
    f->set_clock();
    auto ctx = std::make_shared<actors::run_context>(base_);
    auto env = sys.spawn(stand_in, f);
    ctx->store = caf::actor_cast<messages::state_store_actor>(env);
    ctx->supervisor = caf::actor_cast<messages::supervisor_actor>(env);
    ctx->host = caf::actor_cast<messages::attempt_host_actor>(env);
    ctx->out = nullptr;
    ctx->trace = f->mem;
    ctx->clk = f->clk;
    ctx->io = std::make_shared<recorded_io>(f);
    f->task = sys.spawn(actors::task_actor_impl, actors::run_context_ptr(ctx), std::move(*spec),
                        caf::actor_cast<messages::scheduler_actor>(env));
    // Run until the actor ends; when it idles, deliver a stop recorded next
    // or fire its timers (on the clock of the edge that follows).
    for (int rounds = 0; rounds < 10'000 && !f->ended; ++rounds) {
      sched.run();
      if (f->ended)
        break;
      if (f->stop_is_next() && f->stops_sent <= f->cursor() && !f->held) {
        f->stops_sent = f->cursor() + 1;
        caf::anon_send(f->task, messages::stop_run{"replay"});
        continue;
      }
      if (f->held || !sched.has_pending_timeout())
        break;
      f->set_clock();
      sched.trigger_timeouts();
    }
    caf::anon_send_exit(f->task, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(env, caf::exit_reason::user_shutdown);
    sched.run();
    collect(life, *f);
    f->task = nullptr; // the actor's context holds f (through its io)
    f->held.reset();
  }

  // Maps the replayed actor's n-th edge to the lifetime's n-th recorded
  // edge and files the decisions it caused there. From the first edge of
  // another kind on (or the first one missing) nothing maps: an error at
  // the first edge replay compares from there says what differs, and so
  // does a request the stand-ins could not answer.
  void collect(const lifetime& life, const feed& f) {
    auto kept = f.mem->kept_records();
    auto m = match_edges(kept, life.edges);
    const auto split = m.split;
    // A lifetime the trace cut off (no task.end: the run stopped or
    // crashed) may go on in replay, and may stop short of recorded edges
    // that no request of the actor's decides (an attempt.exit whose result
    // was cut): only a different edge, or a compared edge it never
    // reached, is a difference there.
    auto compared_from = [&life](std::size_t i) {
      for (; i < life.edges.size(); ++i)
        if (std::find(actor_edges.begin(), actor_edges.end(), life.edges[i]->kind) !=
            actor_edges.end())
          return true;
      return false;
    };
    bool differs = life.ended ? split < life.edges.size() || split < m.replayed.size()
                              : (split < m.replayed.size() && split < life.edges.size()) ||
                                  (split < life.edges.size() && compared_from(split));
    for (const auto& r : kept)
      if (r.dir == runtime::trace_direction::decision && r.cause != 0)
        if (auto i = m.index.find(r.cause); i != m.index.end() && i->second < split)
          decided_[life.edges[i->second]->seq].push_back({r.kind, r.body});
    // A cut lifetime may ask for what comes after the cut (the result of an
    // attempt that ran when the run stopped): the trace ends there.
    bool after_the_cut = !life.ended && !compared_from(f.problem_at);
    if (!f.problem.empty() && f.problem_at <= split && !after_the_cut)
      errors_.emplace(anchor(life, f.problem_at), "task actor replay: " + f.problem);
    else if (differs)
      errors_.emplace(anchor(life, split),
                      "task actor replay: the task actor of " + life.task + " " + m.difference());
  }

  // The first edge at or after index i that replay compares for the task
  // actor (else the last one).
  static int64_t anchor(const lifetime& life, std::size_t i) {
    auto compared = [](const runtime::trace_record* e) {
      return std::find(actor_edges.begin(), actor_edges.end(), e->kind) != actor_edges.end();
    };
    for (auto j = i; j < life.edges.size(); ++j)
      if (compared(life.edges[j]))
        return life.edges[j]->seq;
    for (auto j = life.edges.size(); j-- > 0;)
      if (compared(life.edges[j]))
        return life.edges[j]->seq;
    return life.edges.front()->seq;
  }

  actors::run_context base_;
  const runtime::trace_paths& roots_;
  std::vector<lifetime> lives_;
  std::map<int64_t, std::size_t> life_of_;
  records_by_cause by_cause_;
  std::set<std::size_t> done_;
  decisions_by_edge decided_;
  std::map<int64_t, std::string> errors_;
};

} // namespace

void add_task_actor_replay(runtime::replay_handlers& handlers, const runtime::trace_file& trace,
                           const actors::run_context& base, const runtime::trace_paths& roots) {
  auto replay = std::make_shared<task_actor_replay>(trace, base, roots);
  auto by_actor = [&handlers, replay](std::string_view edge, std::vector<std::string> produces) {
    handlers[std::string(edge)] = {
      produces, nullptr, [replay, produces](int64_t seq, const json&) {
        return replay->at(seq, produces);
      }};
  };
  by_actor(kinds::task_begin, {std::string(kinds::task_target), std::string(kinds::task_reset_wait),
                               std::string(kinds::task_end)});
  by_actor(kinds::task_launch, {std::string(kinds::attempt_launch)});
  by_actor(kinds::attempt_result, {std::string(kinds::stage_step), std::string(kinds::review_step),
                                   std::string(kinds::task_end)});
  by_actor(kinds::task_stop, {std::string(kinds::attempt_cancel), std::string(kinds::task_end)});
  by_actor(kinds::task_error, {std::string(kinds::task_end)});
  // The supervisor's step from its own replay; the task.end of a block
  // from the task actor's.
  if (auto sup = handlers.find(kinds::supervisor_failure); sup != handlers.end()) {
    // Its fn is called where it is at the time, so a caller may still
    // replace it (a mutation check does).
    const runtime::replay_fn* inner = &sup->second.fn;
    sup->second.produces.push_back(std::string(kinds::task_end));
    sup->second.fn_at = [inner, replay](int64_t seq,
                                        const json& body) -> runtime::result<decisions> {
      auto out = (*inner)(body);
      if (!out.is_ok())
        return out;
      auto ends = replay->at(seq, {std::string(kinds::task_end)});
      if (!ends.is_ok())
        return ends.error();
      out->insert(out->end(), ends->begin(), ends->end());
      return out;
    };
  }
}

} // namespace ad::tools
