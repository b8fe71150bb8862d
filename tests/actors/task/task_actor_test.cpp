// The real task actor on CAF's deterministic scheduler, with the real
// supervisor actor deciding and stand-ins for the rest: a state store that
// keeps the model in memory and applies every change (so the durable order
// is visible), an attempt host that ends each attempt as the test scripted
// it (or holds it until it is cancelled), a scheduler that keeps the
// task_ended it is told, and file reads given by the test. Each test drives
// one path of a task through the actor: a failure and its retry, a failover,
// a wait for cooling targets, a block, a stop, and (with the run's real
// claim watcher) a block for a write outside the claim.

#include "actors/task/task_actor.hpp"

#include <caf/all.hpp>

#include <deque>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "actors/claims/claim_watcher.hpp"
#include "actors/supervisor/supervisor_actor.hpp"
#include "messages/types.hpp"
#include "runtime/agents/attempt_locator.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/run/attempt_snapshots.hpp"
#include "runtime/run/task_files.hpp"
#include "runtime/state/change.hpp"
#include "runtime/state/model.hpp"
#include "runtime/state/spend.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::actors {
namespace {

struct test_config : caf::actor_system_config {
  test_config() {
    set("scheduler.policy", caf::atom("testing"));
    messages::register_message_types(*this);
  }
};

constexpr const char* policy_text = R"({
  "targets": [
    {"id": "sim-a", "adapter": "command", "model": "a", "execution_class": "cloud_model", "argv": ["x"]},
    {"id": "sim-b", "adapter": "command", "model": "b", "execution_class": "cloud_model", "argv": ["x"]}
  ],
  "rules": [{"id": "workers", "stage": "worker", "lanes": ["cloud"], "grades": [1, 10],
             "candidates": ["sim-a", "sim-b"]}],
  "review_target": "sim-a",
  "promotion": {"sim-a": "sim-b"},
  "backoff": {"initial_s": 0.5, "coefficient": 2, "max_s": 4}
})";

const std::string task_name = "g/01_x";
const std::string work_unit = "g/01_x::plan-1::tag-a";
constexpr runtime::millis start_time = 1'800'000'000'000;

// How the stand-in host ends one attempt.
struct scripted_end {
  std::string status = "succeeded"; // or "failed"
  std::string failure_class;
  bool hold = false; // keep it running until cancel_attempt
};

// What the stand-ins saw, shared with the test.
struct seen {
  runtime::state_model model;
  std::vector<std::string> applied;            // change names, in durable order
  std::vector<messages::start_attempt> starts; // in order
  std::vector<int64_t> recorded_at_start;      // the durable attempt counter as each start arrived
  std::deque<scripted_end> script;
  std::map<int64_t, runtime::token_usage> spent; // what each attempt reports, by number
  std::vector<std::string> cancels;            // identities
  std::optional<caf::typed_response_promise<messages::attempt_result>> held;
  std::string attempt_dir;
  std::optional<messages::task_ended> ended;
  // Hold the store's answer to the changes that record an attempt start,
  // or a claim violation.
  bool hold_attempt_start = false;
  bool hold_violation = false;
  std::optional<caf::typed_response_promise<messages::state_changes_applied>> held_apply;
  messages::state_changes_applied held_apply_value;
  // The run's claim watcher: the host tells it of each attempt's agent, and
  // the agent writes `stray` (outside every claim) while it runs.
  messages::claim_watcher_actor watcher;
  std::string stray;
};

messages::state_store_actor::behavior_type stand_in_store(messages::state_store_actor::pointer self,
                                                          std::shared_ptr<seen> s) {
  return {
    [self, s](messages::apply_state_changes& msg)
      -> caf::result<messages::state_changes_applied> {
      messages::state_changes_applied out;
      for (const auto& c : msg.changes) {
        auto st = runtime::apply_change(s->model, c);
        s->applied.push_back(runtime::change_name(c));
        out.outcomes.push_back({static_cast<uint8_t>(st.get_code()), st.message()});
      }
      out.seq = s->applied.size();
      bool starts = std::any_of(msg.changes.begin(), msg.changes.end(), [](const auto& c) {
        return std::holds_alternative<runtime::record_attempt_started>(c);
      });
      bool violation = std::any_of(msg.changes.begin(), msg.changes.end(), [](const auto& c) {
        return std::holds_alternative<runtime::record_claim_violation>(c);
      });
      if ((starts && s->hold_attempt_start) || (violation && s->hold_violation)) {
        auto rp = self->make_response_promise<messages::state_changes_applied>();
        s->held_apply = rp;
        s->held_apply_value = out;
        return rp;
      }
      return out;
    },
    [s](messages::get_task_state& q) {
      messages::task_state_reply r;
      r.task = q.task;
      if (auto it = s->model.tasks.find(q.task); it != s->model.tasks.end()) {
        r.found = true;
        r.state = it->second;
      }
      return r;
    },
    [s](messages::get_task_spend& q) {
      return messages::task_spend_reply{runtime::task_spend(s->model, q.task),
                                        runtime::spend_totals_of(s->model).run};
    },
    [s](messages::get_state_snapshot) { return messages::state_snapshot_reply{0, s->model}; },
    [s](messages::subscribe_state_changes) { return messages::state_snapshot_reply{0, s->model}; },
    [](messages::get_claims) { return messages::claims_reply{}; },
    // The test's signal to answer the held changes (a promise is
    // delivered on its actor).
    [s](messages::st_batch_atom) {
      if (s->held_apply) {
        s->held_apply->deliver(s->held_apply_value);
        s->held_apply.reset();
      }
    },
  };
}

std::string identity_of(const messages::start_attempt& req) {
  return runtime::make_attempt_identity(req.task, req.plan_number, req.role, req.attempt);
}

messages::attempt_result result_for(const seen& s, const messages::start_attempt& req,
                                    const scripted_end& end) {
  messages::attempt_result r;
  r.identity = identity_of(req);
  r.attempt_dir = s.attempt_dir;
  r.locator_path = s.attempt_dir + "/locator.json";
  r.status = end.status;
  r.exit_code = end.status == "succeeded" ? 0 : 1;
  r.failure_class = end.failure_class;
  r.evidence = end.failure_class.empty() ? "" : "the agent said: " + end.failure_class;
  if (auto it = s.spent.find(req.attempt); it != s.spent.end())
    r.usage = it->second;
  return r;
}

messages::attempt_host_actor::behavior_type stand_in_host(messages::attempt_host_actor::pointer self,
                                                          std::shared_ptr<seen> s) {
  return {
    [self, s](messages::start_attempt& req) -> caf::result<messages::attempt_result> {
      int64_t counter = 0;
      for (const auto& [key, n] : s->model.attempt_counters)
        if (key.task == req.task && key.role == req.role)
          counter = std::max(counter, n);
      s->recorded_at_start.push_back(counter);
      s->starts.push_back(req);
      auto end = s->script.empty() ? scripted_end{} : s->script.front();
      if (!s->script.empty())
        s->script.pop_front();
      if (s->watcher) {
        // As the attempt actor: the watcher's answer before the agent
        // starts; the agent writes; its end before the result.
        auto rp = self->make_response_promise<messages::attempt_result>();
        auto now = runtime::system_clock().now();
        auto identity = identity_of(req);
        self->request(s->watcher, std::chrono::seconds(5),
                      messages::attempt_watch_begin{req.task, identity, "m-" + identity, 0,
                                                    req.write_paths, now})
          .then([self, s, rp, req, end, identity](const messages::attempt_watch_ready&) mutable {
            std::ofstream(s->stray) << "stray\n";
            self->send(s->watcher,
                       messages::attempt_watch_end{identity, runtime::system_clock().now()});
            rp.deliver(result_for(*s, req, end));
          });
        return rp;
      }
      if (end.hold) {
        auto rp = self->make_response_promise<messages::attempt_result>();
        s->held = rp;
        return rp;
      }
      return result_for(*s, req, end);
    },
    [](messages::adopt_attempt&) -> caf::result<messages::attempt_result> {
      return caf::make_error(messages::errc::invalid_request, "no adoption in this test");
    },
    [](messages::place_attempt&) { return messages::attempt_placement{"local", ""}; },
    [s](messages::cancel_attempt& c) {
      s->cancels.push_back(c.identity);
      if (s->held) {
        const auto& req = s->starts.back();
        s->held->deliver(result_for(*s, req, {"failed", "cancelled", false}));
        s->held.reset();
      }
    },
  };
}

messages::scheduler_actor::behavior_type stand_in_scheduler(messages::scheduler_actor::pointer,
                                                            std::shared_ptr<seen> s) {
  return {
    [s](messages::task_ended& e) { s->ended = e; },
    [](messages::sch_pass_atom) {},
    [](messages::sch_poll_atom) {},
    [](messages::shutdown_requested&) {},
    [](messages::state_changes_published&) {},
    [](messages::claim_violation_noted&) {},
    [](messages::violating_attempt_ended&) {},
  };
}

// The files a task actor reads, as the test gives them: the worker's
// runtime identity is what its last start asked for; the write set is
// empty.
class given_files final : public runtime::task_files {
public:
  explicit given_files(std::shared_ptr<seen> s) : s_(std::move(s)) {}
  runtime::launch_reading read_for_launch(const runtime::task_context&, const task_spec&,
                                          const runtime::task_cmd::read_for_launch&) const override {
    return {};
  }
  runtime::attempt_reading read_after_attempt(
    const runtime::task_context&, const task_spec&,
    const runtime::task_cmd::read_after_attempt&) const override {
    runtime::attempt_reading r;
    if (!s_->starts.empty())
      r.runtime_identity = {s_->starts.back().adapter, s_->starts.back().model};
    return r;
  }
  std::vector<runtime::named_file> named_files(const runtime::named_path_query&) const override {
    return {};
  }
  void remove_attempt_logs(const runtime::task_context&, const task_spec&) const override {}

private:
  std::shared_ptr<seen> s_;
};

// The run's claim watcher over a workspace folder: snapshots, `block`.
messages::claim_watcher_actor spawn_watcher(caf::actor_system& sys, const run_context& ctx,
                                            const std::filesystem::path& state_root) {
  claim_watcher_config c;
  c.workspace = ctx.workspace;
  c.state_root = state_root.string();
  c.runs_dir = ctx.runs_dir;
  c.policy = {runtime::violation_action::block, runtime::claim_watch_mode::snapshots};
  c.store = ctx.store;
  c.clock = std::make_shared<runtime::system_clock>();
  return sys.spawn(claim_watcher_impl, std::move(c));
}

class task_actor_test : public ::testing::Test {
protected:
  task_actor_test()
      : sys_(cfg_), sched_(dynamic_cast<caf::scheduler::test_coordinator&>(sys_.scheduler())),
        seen_(std::make_shared<seen>()), clock_(std::make_shared<runtime::manual_clock>(start_time)) {}

  void SetUp() override {
    auto loaded = runtime::parse_policy_text(policy_text, "policy.json");
    ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
    pol_ = loaded->value;
    seen_->attempt_dir = dir_.path().string();
    ASSERT_TRUE(
      runtime::apply_change(seen_->model, runtime::begin_work_unit{task_name, work_unit}).is_ok());
    auto ctx = std::make_shared<run_context>();
    ctx->workspace = (dir_.path() / "ws").string();
    ctx->task_root = ctx->workspace + "/agent-task";
    ctx->runs_dir = dir_.path().string();
    ctx->pol = pol_;
    ctx->zone = runtime::time_zone::fixed("UTC", 0);
    ctx->clk = clock_;
    ctx->store = sys_.spawn(stand_in_store, seen_);
    ctx->supervisor = spawn_supervisor(sys_, pol_, ctx->zone);
    ctx->host = sys_.spawn(stand_in_host, seen_);
    ctx->io = std::make_shared<given_files>(seen_);
    ctx_ = ctx;
    scheduler_ = sys_.spawn(stand_in_scheduler, seen_);
    sched_.run();
  }

  void TearDown() override {
    for (const caf::actor& a : {caf::actor_cast<caf::actor>(ctx_->store),
                                caf::actor_cast<caf::actor>(seen_->watcher),
                                caf::actor_cast<caf::actor>(ctx_->supervisor),
                                caf::actor_cast<caf::actor>(ctx_->host),
                                caf::actor_cast<caf::actor>(scheduler_)})
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    sched_.run();
  }

  task_spec worker_spec() const {
    task_spec spec;
    spec.name = task_name;
    spec.stage = runtime::task_stage::worker;
    spec.task_dir = ctx_->task_root + "/g/01_x";
    spec.plan = spec.task_dir + "/PLAN-cloud-G05.md";
    spec.lane = "cloud";
    spec.grade = 5;
    spec.plan_number = 1;
    spec.work_unit_id = work_unit;
    return spec;
  }

  void start_task() {
    task_ = sys_.spawn(task_actor_impl, run_context_ptr(ctx_), worker_spec(), scheduler_);
    sched_.run();
  }

  // Runs the actors; whenever they are idle, moves the clock to the next
  // timer and fires it, until the task has ended (at most `timers` times).
  void run_to_end(int timers = 20) {
    sched_.run();
    for (int i = 0; i < timers && !seen_->ended; ++i) {
      if (!sched_.trigger_timeout())
        break;
      // The timer's message is queued, not handled yet: the run's clock
      // shows the time it fired at when the actor reads it.
      clock_->set(start_time + std::chrono::duration_cast<std::chrono::milliseconds>(
                                 sched_.clock().current_time - epoch_)
                                 .count());
      sched_.run();
    }
  }

  std::vector<std::string> started_models() const {
    std::vector<std::string> out;
    for (const auto& r : seen_->starts)
      out.push_back(r.model);
    return out;
  }

  void expect_each_start_durable_first() const {
    ASSERT_EQ(seen_->recorded_at_start.size(), seen_->starts.size());
    for (std::size_t i = 0; i < seen_->starts.size(); ++i)
      EXPECT_EQ(seen_->recorded_at_start[i], seen_->starts[i].attempt)
        << "attempt " << seen_->starts[i].attempt << " reached the host before it was durable";
  }

  test_config cfg_;
  caf::actor_system sys_;
  caf::scheduler::test_coordinator& sched_;
  caf::actor_clock::time_point epoch_ = sched_.clock().now();
  std::shared_ptr<seen> seen_;
  std::shared_ptr<runtime::manual_clock> clock_;
  test::temp_dir dir_;
  runtime::policy pol_;
  std::shared_ptr<run_context> ctx_;
  messages::scheduler_actor scheduler_;
  messages::task_actor task_;
};

TEST_F(task_actor_test, a_success_records_the_decision_and_the_start_before_launching) {
  start_task();
  run_to_end();
  ASSERT_TRUE(seen_->ended.has_value());
  EXPECT_EQ(seen_->ended->outcome, "advance") << seen_->ended->reason;
  EXPECT_EQ(started_models(), (std::vector<std::string>{"a"}));
  expect_each_start_durable_first();
  const auto& st = seen_->model.tasks.at(task_name);
  ASSERT_TRUE(st.completing_decision.has_value());
  EXPECT_EQ((*st.completing_decision)->selected_target, "sim-a");
  EXPECT_EQ(st.decisions.at("worker")->selected_target, "sim-a");
  // The decision is durable before the attempt start, and that before the
  // stage's success.
  auto at = [&](const std::string& name) {
    return std::find(seen_->applied.begin(), seen_->applied.end(), name) - seen_->applied.begin();
  };
  EXPECT_LT(at("record_decision"), at("record_attempt_started"));
  EXPECT_LT(at("record_attempt_started"), at("set_completing_decision"));
}

TEST_F(task_actor_test, a_failure_is_retried_on_the_same_target_after_the_backoff) {
  seen_->script = {{"failed", "generic-error"}, {"succeeded", ""}};
  start_task();
  // The first attempt failed; the retry waits for the 0.5 s backoff.
  EXPECT_EQ(seen_->starts.size(), 1u);
  EXPECT_FALSE(seen_->ended.has_value());
  run_to_end();
  ASSERT_TRUE(seen_->ended.has_value());
  EXPECT_EQ(seen_->ended->outcome, "advance") << seen_->ended->reason;
  EXPECT_EQ(started_models(), (std::vector<std::string>{"a", "a"}));
  EXPECT_EQ(seen_->starts[1].attempt, 2);
  EXPECT_GE(clock_->now() - start_time, 500);
  expect_each_start_durable_first();
}

TEST_F(task_actor_test, a_quota_failure_fails_over_to_the_next_candidate) {
  seen_->script = {{"failed", "provider-quota"}, {"succeeded", ""}};
  start_task();
  run_to_end();
  ASSERT_TRUE(seen_->ended.has_value());
  EXPECT_EQ(seen_->ended->outcome, "advance") << seen_->ended->reason;
  EXPECT_EQ(started_models(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(seen_->model.tasks.at(task_name).decisions.at("worker")->selected_target, "sim-b");
  expect_each_start_durable_first();
}

TEST_F(task_actor_test, a_task_waits_while_every_target_cools_down) {
  runtime::probe_snapshot snap;
  snap.snapshot_id = "batch-1";
  snap.checked_at = start_time;
  for (const char* id : {"sim-a", "sim-b"})
    snap.entries.push_back(
      {id, {"probe"}, runtime::quota_status::exhausted, true, start_time + 60'000, ""});
  caf::anon_send(ctx_->supervisor, messages::quota_batch_taken{snap});
  sched_.run();
  start_task();
  // Nothing starts while both cool down; the task is not blocked.
  EXPECT_TRUE(seen_->starts.empty());
  EXPECT_FALSE(seen_->ended.has_value());
  run_to_end();
  ASSERT_TRUE(seen_->ended.has_value());
  EXPECT_EQ(seen_->ended->outcome, "advance") << seen_->ended->reason;
  ASSERT_EQ(seen_->starts.size(), 1u);
  EXPECT_GE(clock_->now(), start_time + 60'000);
}

TEST_F(task_actor_test, failures_past_the_budget_block_the_task) {
  for (int i = 0; i < 10; ++i)
    seen_->script.push_back({"failed", "generic-error"});
  start_task();
  run_to_end();
  ASSERT_TRUE(seen_->ended.has_value());
  EXPECT_EQ(seen_->ended->outcome, "blocked");
  EXPECT_NE(seen_->ended->reason.find("recovery failure limit"), std::string::npos)
    << seen_->ended->reason;
  EXPECT_EQ(static_cast<int64_t>(seen_->starts.size()), pol_.budgets.recovery_failures);
  const auto& st = seen_->model.tasks.at(task_name);
  EXPECT_TRUE(st.blocked.has_value());
  EXPECT_EQ(seen_->applied.back(), "clear_active_stage");
}

// Ceilings (policy "limits"): the task actor answers the machine's spend
// reading from the state store, and a reached ceiling blocks the task
// before its attempt starts.
TEST_F(task_actor_test, a_run_over_its_ceiling_blocks_the_task_before_any_attempt) {
  ctx_->pol.limits.run.tokens = 500;
  runtime::token_usage other;
  other.input_tokens = 480;
  other.output_tokens = 20;
  ASSERT_TRUE(runtime::apply_change(seen_->model, runtime::begin_work_unit{"g/02_y", "g/02_y::w"})
                .is_ok());
  runtime::record_attempt_usage spent{"g__02_y__p1__worker__a01", "g/02_y", "sim-a", other};
  ASSERT_TRUE(runtime::apply_change(seen_->model, spent).is_ok());
  start_task();
  run_to_end();
  ASSERT_TRUE(seen_->ended.has_value());
  EXPECT_EQ(seen_->ended->outcome, "blocked");
  EXPECT_EQ(seen_->ended->reason.rfind("run token ceiling reached: 500 tokens spent", 0), 0u)
    << seen_->ended->reason;
  EXPECT_TRUE(seen_->starts.empty()) << "an attempt started over the run's ceiling";
  const auto& st = seen_->model.tasks.at(task_name);
  ASSERT_TRUE(st.blocked.has_value());
  EXPECT_EQ(st.blocked->reason, seen_->ended->reason);
  EXPECT_EQ(st.blocked->evidence, "/limits/run/tokens");
}

TEST_F(task_actor_test, a_retry_after_the_task_spent_its_ceiling_blocks_instead_of_starting) {
  ctx_->pol.limits.task.cost_usd = 0.5;
  seen_->script = {{"failed", "generic-error"}, {"succeeded", ""}};
  seen_->spent[1] = runtime::token_usage{1000, 10, {}, {}, {}, 0.75};
  start_task();
  run_to_end();
  ASSERT_TRUE(seen_->ended.has_value());
  EXPECT_EQ(seen_->ended->outcome, "blocked");
  EXPECT_EQ(seen_->ended->reason.rfind("task cost ceiling reached: $0.7500 spent", 0), 0u)
    << seen_->ended->reason;
  EXPECT_EQ(seen_->starts.size(), 1u) << "the retry started over the task's ceiling";
}

TEST_F(task_actor_test, a_stop_cancels_the_running_attempt_and_ends_cancelled) {
  seen_->script = {{"succeeded", "", true}};
  start_task();
  ASSERT_EQ(seen_->starts.size(), 1u);
  EXPECT_FALSE(seen_->ended.has_value());
  caf::anon_send(task_, messages::stop_run{"test"});
  sched_.run();
  ASSERT_EQ(seen_->cancels, (std::vector<std::string>{identity_of(seen_->starts[0])}));
  ASSERT_TRUE(seen_->ended.has_value());
  EXPECT_EQ(seen_->ended->outcome, "cancelled");
  EXPECT_EQ(seen_->applied.back(), "clear_active_stage");
}

TEST_F(task_actor_test, a_stop_during_a_backoff_ends_the_task_without_another_attempt) {
  seen_->script = {{"failed", "generic-error"}, {"succeeded", ""}};
  start_task();
  ASSERT_EQ(seen_->starts.size(), 1u);
  caf::anon_send(task_, messages::stop_run{"test"});
  sched_.run();
  ASSERT_TRUE(seen_->ended.has_value());
  EXPECT_EQ(seen_->ended->outcome, "cancelled");
  EXPECT_TRUE(seen_->cancels.empty());
  run_to_end();
  EXPECT_EQ(seen_->starts.size(), 1u);
}

TEST_F(task_actor_test, a_stop_while_the_start_is_made_durable_starts_no_agent) {
  seen_->hold_attempt_start = true;
  start_task();
  ASSERT_TRUE(seen_->held_apply.has_value()) << "the attempt start was not asked to be durable";
  EXPECT_TRUE(seen_->starts.empty());
  caf::anon_send(task_, messages::stop_run{"test"});
  sched_.run();
  EXPECT_FALSE(seen_->ended.has_value()) << "the task ended before its start was durable";
  caf::anon_send(ctx_->store, messages::st_batch_atom::value);
  run_to_end();
  ASSERT_TRUE(seen_->ended.has_value());
  EXPECT_EQ(seen_->ended->outcome, "cancelled");
  EXPECT_TRUE(seen_->starts.empty()) << "an agent started after the stop";
  EXPECT_EQ(seen_->applied.back(), "clear_active_stage");
}

// The watcher judges the attempt's writes after its end, while the task
// goes on with the attempt's result: the task's next step waits for the
// verdict, so the block is durable before the stage's success is (and
// before the scheduler hears of its end and admits the next stage).
TEST_F(task_actor_test, a_write_outside_the_claim_blocks_the_task_before_its_next_step) {
  std::filesystem::create_directories(ctx_->workspace);
  seen_->stray = ctx_->workspace + "/STRAY.md";
  seen_->watcher = spawn_watcher(sys_, *ctx_, dir_.path() / "state");
  ctx_->claims = seen_->watcher;
  seen_->hold_violation = true;
  start_task();
  ASSERT_EQ(seen_->starts.size(), 1u);
  ASSERT_TRUE(seen_->held_apply.has_value()) << "no violation was judged";
  EXPECT_FALSE(seen_->ended.has_value())
    << "the task ended (" << seen_->ended->outcome << ") before its block was durable";
  EXPECT_EQ(std::count(seen_->applied.begin(), seen_->applied.end(), "set_completing_decision"), 0)
    << "the stage's success was made durable before the verdict";
  caf::anon_send(ctx_->store, messages::st_batch_atom::value);
  run_to_end();
  ASSERT_TRUE(seen_->ended.has_value());
  ASSERT_TRUE(seen_->model.tasks.at(task_name).blocked.has_value());
  EXPECT_NE(seen_->model.tasks.at(task_name).blocked->reason.find("STRAY.md"), std::string::npos);
  auto at = [&](const std::string& name) {
    return std::find(seen_->applied.begin(), seen_->applied.end(), name) - seen_->applied.begin();
  };
  EXPECT_LT(at("set_blocked"), at("set_completing_decision"));
}

} // namespace
} // namespace ad::actors
