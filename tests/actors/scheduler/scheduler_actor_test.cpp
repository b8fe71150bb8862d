// The scheduler actor on CAF's deterministic scheduler, with everything it
// reads and starts given by the test (scheduler_io): a real scan of a
// workspace in a temp folder, made-up active-stage probes, a stand-in
// state store that keeps the model in memory and publishes every change,
// and stand-in task actors that only remember what they were sent. The
// test plays the task actors' part by hand (archiving a task, sending
// task_ended), so every pass the scheduler makes is one the test caused.

#include "actors/scheduler/scheduler_actor.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "actors/scheduler/scheduler_io.hpp"
#include "messages/types.hpp"
#include "runtime/state/model_json.hpp"
#include "runtime/workspace/workspace_scanner.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::actors {
namespace {

namespace fs = std::filesystem;
using test::temp_dir;

struct test_config : caf::actor_system_config {
  test_config() {
    set("scheduler.policy", caf::atom("testing"));
    messages::register_message_types(*this);
  }
};

// What the stand-ins saw, shared with the test.
struct seen {
  std::vector<std::string> started;                  // task names, in start order
  std::map<std::string, std::string> started_stage;  // task -> stage of its last start
  std::vector<caf::actor> tasks;                     // the stand-in task actors and prober
  std::map<std::string, int> stops;                  // task -> stop_run received
  std::vector<std::string> removed_logs;             // remove_attempt_logs
  std::vector<std::string> archived_groups;          // archive_work_log
  std::vector<std::vector<std::string>> probed;      // tasks per read_active_stages
  std::map<std::string, runtime::active_probe_kind> probe_answer; // task -> answer
  // task -> the whole reading to give (its state is filled in); wins over probe_answer
  std::map<std::string, runtime::active_stage_reading> reading;
  std::vector<runtime::state_change> applied;        // every change the store took
  int applies = 0;
  bool refuse_applies = false;                       // the store answers every apply with an error
  int quota_batches = 0;
  bool work_log_writable = true;                      // probe_work_logs' answer
  std::vector<std::vector<std::string>> work_log_probes;
};

// A task actor that only counts the stops it is sent.
messages::task_actor::behavior_type stand_in_task(messages::task_actor::pointer,
                                                  std::shared_ptr<seen> record, std::string name) {
  return {
    [](messages::task_wake_atom) {},
    [record, name](const messages::stop_run&) { ++record->stops[name]; },
  };
}

// Every batch fails (the probes' commands are not there): the admitted
// workers start without a quota snapshot, as in a run.
messages::quota_prober_actor::behavior_type stand_in_prober(messages::quota_prober_actor::pointer,
                                                            std::shared_ptr<seen> record) {
  return {
    [record](const messages::run_quota_probes&) -> caf::result<messages::quota_probes_done> {
      ++record->quota_batches;
      return caf::make_error(caf::sec::unexpected_message);
    },
  };
}

caf::behavior stand_in_waiter(caf::event_based_actor*,
                              std::shared_ptr<std::optional<messages::run_finished>> done) {
  return {[done](const messages::run_finished& f) { *done = f; }};
}

class test_io final : public scheduler_io {
public:
  test_io(const run_context& ctx, std::shared_ptr<seen> s)
      : s_(std::move(s)),
        scanner_(ctx.workspace,
                 ctx.task_group.empty() ? std::nullopt : std::optional<std::string>(ctx.task_group),
                 runtime::scanner_watch::none),
        task_root_(ctx.task_root) {}

  runtime::result<runtime::scan_refresh> refresh_scan(
    const std::vector<fs::path>& also) override {
    return scanner_.refresh(also);
  }
  const runtime::task_scan_view& scan() const override { return scanner_; }
  std::vector<fs::path> archived_task_folders(const std::string& task) const override {
    std::vector<fs::path> out;
    fs::path month = fs::path(task_root_) / "archive" / "2026" / "11";
    if (fs::exists(month / task / "complete.log"))
      out.push_back(month / task);
    return out;
  }
  std::map<std::string, bool> probe_work_logs(const std::vector<std::string>& tasks) override {
    std::map<std::string, bool> out;
    for (const auto& t : tasks)
      out[t] = s_->work_log_writable;
    s_->work_log_probes.push_back(tasks);
    return out;
  }
  work_log_move archive_work_log(const std::string& group) override {
    s_->archived_groups.push_back(group);
    return {false, true, "no work log"};
  }
  void remove_attempt_logs(const std::string& task) override {
    s_->removed_logs.push_back(task);
  }
  std::vector<runtime::active_stage_reading> read_active_stages(
    const runtime::state_model& state) override {
    std::vector<runtime::active_stage_reading> out;
    std::vector<std::string> names;
    for (const auto& [name, st] : state.tasks) {
      if (st.active_stage.empty())
        continue;
      runtime::active_stage_reading r;
      if (auto given = s_->reading.find(name); given != s_->reading.end())
        r = given->second;
      r.task = name;
      r.state = st;
      names.push_back(name);
      if (s_->reading.count(name)) {
        out.push_back(std::move(r));
        continue;
      }
      auto answer = s_->probe_answer.find(name);
      r.probe.kind =
        answer == s_->probe_answer.end() ? runtime::active_probe_kind::stale : answer->second;
      r.probe.reason = r.probe.kind == runtime::active_probe_kind::live ? "pid 4242 alive"
                                                                        : "agent gone";
      out.push_back(std::move(r));
    }
    s_->probed.push_back(std::move(names));
    return out;
  }
  messages::task_actor start_task(messages::scheduler_actor::pointer self, const run_context_ptr&,
                                  const task_spec& spec) override {
    s_->started.push_back(spec.name);
    s_->started_stage[spec.name] = spec.stage_name();
    auto task = self->spawn(stand_in_task, s_, spec.name);
    s_->tasks.push_back(caf::actor_cast<caf::actor>(task));
    return task;
  }
  messages::quota_prober_actor start_quota_prober(
    messages::scheduler_actor::pointer self) override {
    auto prober = self->spawn(stand_in_prober, s_);
    s_->tasks.push_back(caf::actor_cast<caf::actor>(prober));
    return prober;
  }

private:
  std::shared_ptr<seen> s_;
  runtime::workspace_scanner scanner_;
  std::string task_root_;
};

// The state store's part: the model in memory, each apply acknowledged with
// the next seq and published to the subscriber.
caf::behavior stand_in_store(caf::event_based_actor* self, std::shared_ptr<seen> s,
                             std::shared_ptr<runtime::state_model> model) {
  auto seq = std::make_shared<uint64_t>(0);
  auto subscriber = std::make_shared<caf::actor>();
  return {
    [=](const messages::subscribe_state_changes&) {
      *subscriber = caf::actor_cast<caf::actor>(self->current_sender());
      return messages::state_snapshot_reply{*seq, *model};
    },
    [=](const messages::apply_state_changes& req) -> caf::result<messages::state_changes_applied> {
      ++s->applies;
      if (s->refuse_applies)
        return caf::make_error(caf::sec::runtime_error, "disk full");
      for (const auto& c : req.changes) {
        (void) runtime::apply_change(*model, c);
        s->applied.push_back(c);
      }
      ++*seq;
      if (*subscriber)
        self->send(caf::actor_cast<messages::state_subscriber_actor>(*subscriber),
                   messages::state_changes_published{*seq, req.changes});
      return messages::state_changes_applied{*seq, {}};
    },
  };
}

class scheduler_actor_test : public ::testing::Test {
protected:
  scheduler_actor_test()
      : sys(cfg), sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {}

  // Every actor ends before the system goes.
  ~scheduler_actor_test() override {
    for (const auto& t : record->tasks)
      caf::anon_send_exit(t, caf::exit_reason::user_shutdown);
    for (const auto& a :
         {caf::actor_cast<caf::actor>(scheduler), caf::actor_cast<caf::actor>(waiter), store})
      if (a)
        caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    sched.run();
  }

  // Spawns the scheduler over the workspace `ws` and runs it until idle.
  void start(int max_parallel, std::string task_group = "", bool retry_blocked = false) {
    auto ctx = std::make_shared<run_context>();
    ctx->task_group = std::move(task_group);
    ctx->retry_blocked = retry_blocked;
    ctx->workspace = ws.path().string();
    ctx->task_root = (ws.path() / "agent-task").string();
    ctx->runs_dir = (ws.path() / "state" / "runs").string();
    ctx->max_parallel = max_parallel;
    ctx->pol = *runtime::parse_policy(runtime::default_policy_json(), "default");
    ctx->clk = clk;
    ctx->survivor_poll = std::chrono::milliseconds(1000);
    store = sys.spawn(stand_in_store, record, model);
    ctx->store = caf::actor_cast<messages::state_store_actor>(store);
    auto record_ = record;
    ctx->scheduler_io_factory = [record_](const run_context& c) -> std::unique_ptr<scheduler_io> {
      return std::make_unique<test_io>(c, record_);
    };
    waiter = caf::actor_cast<messages::run_waiter_actor>(sys.spawn(stand_in_waiter, finished));
    scheduler = sys.spawn(scheduler_impl, run_context_ptr(ctx), waiter);
    sched.run();
  }

  // What a task actor does when its review archived the task.
  void archive(const std::string& task) {
    ws.write("agent-task/" + task + "/complete.log", "done\n");
    auto to = ws.path() / "agent-task/archive/2026/11" / task;
    fs::create_directories(to.parent_path());
    fs::rename(ws.path() / "agent-task" / task, to);
  }

  void send(messages::task_ended ended) {
    caf::anon_send(scheduler, std::move(ended));
    sched.run();
  }

  // Tasks g/01_a and g/02_b, both known to the group's orchestration record
  // (a dispatcher saw them before).
  void two_observed_tasks() {
    test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
    test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
    runtime::orchestration_record rec;
    rec.tasks["g/01_a"] = {};
    rec.tasks["g/02_b"] = {};
    model->orchestrations["g"] = rec;
  }

  // The work unit the scan gives `task` now.
  std::string work_unit_of(const std::string& task) {
    runtime::workspace_scanner scanner(ws.path(), std::nullopt, runtime::scanner_watch::none);
    EXPECT_TRUE(scanner.refresh().is_ok());
    const auto* t = scanner.find(task);
    return t ? runtime::work_unit_of(*t) : "";
  }

  temp_dir ws;
  test_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  std::shared_ptr<runtime::manual_clock> clk = std::make_shared<runtime::manual_clock>(1'000'000);
  std::shared_ptr<seen> record = std::make_shared<seen>();
  std::shared_ptr<runtime::state_model> model = std::make_shared<runtime::state_model>();
  std::shared_ptr<std::optional<messages::run_finished>> finished =
    std::make_shared<std::optional<messages::run_finished>>();
  caf::actor store;
  messages::run_waiter_actor waiter;
  messages::scheduler_actor scheduler;
};

TEST_F(scheduler_actor_test, starts_ready_tasks_up_to_the_cap_and_the_next_as_one_completes) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
  test::write_minimal_task(ws, "g/03_c", "src/c.cpp");
  start(2);
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a", "g/02_b"}));
  // One admission quota batch for the two workers; it failed, and they
  // started anyway.
  EXPECT_EQ(record->quota_batches, 1);
  // Their claims were durable before they started.
  EXPECT_TRUE(model->claims.count("g/01_a"));
  EXPECT_TRUE(model->claims.count("g/02_b"));
  EXPECT_FALSE(model->claims.count("g/03_c"));
  EXPECT_FALSE(finished->has_value());

  archive("g/01_a");
  send({"g/01_a", "review", "complete", "archived", 0});
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a", "g/02_b", "g/03_c"}));
  EXPECT_FALSE(finished->has_value());

  archive("g/02_b");
  send({"g/02_b", "review", "complete", "archived", 0});
  archive("g/03_c");
  send({"g/03_c", "review", "complete", "archived", 0});
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 0) << (*finished)->summary;
  EXPECT_EQ(record->started.size(), 3u); // nothing started twice
}

TEST_F(scheduler_actor_test, a_dependent_starts_only_once_its_predecessor_is_archived) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02+01_b", "src/b.cpp");
  start(4);
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a"}));
  archive("g/01_a");
  send({"g/01_a", "review", "complete", "archived", 0});
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a", "g/02+01_b"}));
}

TEST_F(scheduler_actor_test, a_live_agent_left_by_a_dead_dispatcher_is_followed_not_started) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
  runtime::task_state st;
  st.work_unit_id = work_unit_of("g/01_a");
  ASSERT_FALSE(st.work_unit_id.empty());
  st.active_stage = "worker";
  model->tasks["g/01_a"] = st;
  record->probe_answer["g/01_a"] = runtime::active_probe_kind::live;

  auto ctx_poll = std::chrono::milliseconds(1000);
  start(4);
  // Start-up probed the one active stage, and only the other task started.
  ASSERT_FALSE(record->probed.empty());
  EXPECT_EQ(record->probed.front(), std::vector<std::string>{"g/01_a"});
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/02_b"}));
  EXPECT_EQ(model->tasks["g/01_a"].active_stage, "worker");

  // The survivor poll fires while the agent still lives: nothing starts.
  auto probes = record->probed.size();
  sched.advance_time(ctx_poll);
  sched.run();
  EXPECT_GT(record->probed.size(), probes);
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/02_b"}));

  // The agent is gone: its stage is cleared durably, then the task starts here.
  record->probe_answer["g/01_a"] = runtime::active_probe_kind::stale;
  sched.advance_time(ctx_poll);
  sched.run();
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/02_b", "g/01_a"}));
  EXPECT_EQ(model->tasks["g/01_a"].active_stage, "");
  bool cleared = std::any_of(record->applied.begin(), record->applied.end(), [](const auto& c) {
    const auto* x = std::get_if<runtime::clear_active_stage>(&c);
    return x && x->task == "g/01_a";
  });
  EXPECT_TRUE(cleared);
  EXPECT_FALSE(finished->has_value());
}

TEST_F(scheduler_actor_test, shutdown_stops_every_running_task_and_ends_with_130) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
  test::write_minimal_task(ws, "g/03_c", "src/c.cpp");
  start(2);
  ASSERT_EQ(record->started.size(), 2u);
  caf::anon_send(scheduler, messages::shutdown_requested{});
  sched.run();
  EXPECT_EQ(record->stops["g/01_a"], 1);
  EXPECT_EQ(record->stops["g/02_b"], 1);
  // It waits for its task actors to end.
  EXPECT_FALSE(finished->has_value());
  send({"g/01_a", "worker", "cancelled", "interrupted", 0});
  EXPECT_FALSE(finished->has_value());
  send({"g/02_b", "worker", "cancelled", "interrupted", 0});
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 130);
  // Nothing was started after the stop.
  EXPECT_EQ(record->started.size(), 2u);
}

// g/01_a and g/02_b run; g/03+02_c (claiming x.cpp) waits for g/02_b. The
// claim watcher reports that g/01_a's running attempt wrote x.cpp.
class claim_violation_wait_test : public scheduler_actor_test {
protected:
  void SetUp() override {
    test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
    test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
    test::write_minimal_task(ws, "g/03+02_c", "src/x.cpp");
    start(4);
    ASSERT_EQ(record->started, (std::vector<std::string>{"g/01_a", "g/02_b"}));
    x_cpp = (fs::canonical(ws.path()) / "src/x.cpp").string();
    caf::anon_send(scheduler, messages::claim_violation_noted{
                                clk->now(), "g/01_a", attempt, x_cpp,
                                {{x_cpp, attempt, "g/01_a"}}, "", ""});
    sched.run();
    // g/02_b completes: its dependent would start, but x.cpp is still
    // being written by another agent.
    archive("g/02_b");
    send({"g/02_b", "review", "complete", "archived", 0});
    EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a", "g/02_b"}));
  }

  const std::string attempt = "g_01_a__p1__worker__a01";
  std::string x_cpp;
};

TEST_F(claim_violation_wait_test, the_claimer_starts_once_the_violating_attempt_ended) {
  caf::anon_send(scheduler, messages::violating_attempt_ended{clk->now(), attempt});
  sched.run();
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a", "g/02_b", "g/03+02_c"}));
  // An end of an attempt that held nothing back changes nothing.
  caf::anon_send(scheduler, messages::violating_attempt_ended{clk->now(), "other"});
  sched.run();
  EXPECT_EQ(record->started.size(), 3u);
}

TEST_F(claim_violation_wait_test, the_claimer_starts_once_the_violators_task_ended) {
  // The task's end arrived before its attempt's: the attempt is over too.
  // (g/01_a's next stage starts again in the same pass, in index order.)
  send({"g/01_a", "worker", "advance", "worker done", 0});
  EXPECT_EQ(record->started,
            (std::vector<std::string>{"g/01_a", "g/02_b", "g/01_a", "g/03+02_c"}));
}

TEST_F(scheduler_actor_test, a_block_for_a_claim_violation_stops_the_running_task) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  start(4);
  ASSERT_EQ(record->started, (std::vector<std::string>{"g/01_a"}));
  // The watcher made the block durable before its note.
  std::string reason = "claim violation: attempt g_01_a__p1__worker__a01 wrote /w/README.md "
                       "outside the task's claim";
  caf::anon_send(caf::actor_cast<messages::state_store_actor>(store),
                 messages::apply_state_changes{{runtime::set_blocked{"g/01_a", {reason, ""}}}});
  sched.run();
  caf::anon_send(scheduler, messages::claim_violation_noted{clk->now(), "g/01_a",
                                                            "g_01_a__p1__worker__a01",
                                                            "/w/README.md", {}, "g/01_a", reason});
  sched.run();
  EXPECT_EQ(record->stops["g/01_a"], 1);
  // Its actor ends cancelled; the task stays blocked and the run ends.
  send({"g/01_a", "worker", "cancelled", reason, 0});
  EXPECT_EQ(record->started.size(), 1u);
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 2) << (*finished)->summary;
}

TEST_F(scheduler_actor_test, a_task_archived_behind_its_back_is_completed_without_an_agent) {
  // One task vanished into the archive while no dispatcher ran (its review
  // outlived the last one).
  two_observed_tasks();
  archive("g/01_a");
  start(4);
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/02_b"}));
  EXPECT_EQ(record->removed_logs, std::vector<std::string>{"g/01_a"});
  EXPECT_EQ(model->orchestrations["g"].tasks["g/01_a"].status,
            runtime::orchestration_task_status::complete);

  // Once the last task's review archived it (and recorded that, as a task
  // actor does), the group closes and its work log moves.
  archive("g/02_b");
  caf::anon_send(caf::actor_cast<messages::state_store_actor>(store),
                 messages::apply_state_changes{{runtime::complete_orchestration_task{
                   "g", "g/02_b", "agent-task/archive/2026/11/g/02_b"}}});
  sched.run();
  send({"g/02_b", "review", "complete", "archived", 0});
  EXPECT_EQ(record->archived_groups, std::vector<std::string>{"g"});
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 0) << (*finished)->summary;
}

TEST_F(scheduler_actor_test, a_group_whose_last_tasks_were_archived_behind_its_back_closes) {
  // Every task of the group vanished into the archive while no dispatcher
  // ran: the restart completes them and closes the group in the same run.
  two_observed_tasks();
  archive("g/01_a");
  archive("g/02_b");
  start(4);
  EXPECT_TRUE(record->started.empty());
  EXPECT_EQ(model->orchestrations["g"].tasks["g/02_b"].status,
            runtime::orchestration_task_status::complete);
  EXPECT_EQ(record->archived_groups, std::vector<std::string>{"g"});
  EXPECT_EQ(model->orchestrations["g"].status, runtime::orchestration_status::complete);
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 0) << (*finished)->summary;
}

TEST_F(scheduler_actor_test, a_completion_the_store_refused_removes_no_logs_and_moves_no_work_log) {
  // Reconciliation completes both vanished tasks and closes their group,
  // but the store refuses the change: nothing that change would justify
  // happens (attempt logs stay, the work log stays), and the run ends
  // blocked.
  two_observed_tasks();
  archive("g/01_a");
  archive("g/02_b");
  record->refuse_applies = true;
  start(4);
  EXPECT_TRUE(record->removed_logs.empty()) << "attempt logs went before the completion was durable";
  EXPECT_TRUE(record->archived_groups.empty()) << "the work log moved before the completion was durable";
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 2) << (*finished)->summary;
}

TEST_F(scheduler_actor_test, a_claim_conflict_waits_for_the_holder_and_then_starts) {
  test::write_minimal_task(ws, "g/01_a", "src/shared.cpp");
  test::write_minimal_task(ws, "g/02_b", "src/shared.cpp");
  start(4);
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a"}));
  EXPECT_FALSE(model->claims.count("g/02_b"));

  // The holder completes: its claim goes (as its task actor releases it),
  // and the waiter starts with the claim now its own.
  archive("g/01_a");
  caf::anon_send(caf::actor_cast<messages::state_store_actor>(store),
                 messages::apply_state_changes{{runtime::release_claim{"g/01_a"}}});
  sched.run();
  send({"g/01_a", "review", "complete", "archived", 0});
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a", "g/02_b"}));
  EXPECT_TRUE(model->claims.count("g/02_b"));
}

TEST_F(scheduler_actor_test, a_paused_task_is_admitted_again_only_after_its_pause) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  start(4);
  ASSERT_EQ(record->started, (std::vector<std::string>{"g/01_a"}));
  // An unchanged review pauses the task for 10 s.
  send({"g/01_a", "review", "pause", "review made no progress", 10'000});
  EXPECT_EQ(record->started.size(), 1u);
  EXPECT_FALSE(finished->has_value()); // a paused task keeps the run open

  // Survivor polls before the pause ends start nothing.
  clk->advance(5'000);
  sched.advance_time(std::chrono::milliseconds(1000));
  sched.run();
  EXPECT_EQ(record->started.size(), 1u);

  clk->advance(5'000);
  sched.advance_time(std::chrono::milliseconds(1000));
  sched.run();
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a", "g/01_a"}));
}

TEST_F(scheduler_actor_test, a_state_store_refusal_stops_admissions_and_ends_the_run_blocked) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  record->refuse_applies = true;
  start(4);
  // The claim could not be made durable, so nothing started.
  EXPECT_TRUE(record->started.empty());
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 2);
  EXPECT_NE((*finished)->summary.find("state store refused a change"), std::string::npos)
    << (*finished)->summary;
  EXPECT_NE((*finished)->summary.find("disk full"), std::string::npos) << (*finished)->summary;
}

TEST_F(scheduler_actor_test, a_workspace_without_agent_task_ends_the_run_blocked) {
  ws.write("README.md", "no tasks here\n");
  start(4);
  EXPECT_TRUE(record->started.empty());
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 2);
  EXPECT_NE((*finished)->summary.find("workspace scan failed"), std::string::npos)
    << (*finished)->summary;
}

TEST_F(scheduler_actor_test, a_task_that_ended_in_error_is_not_started_again_and_is_reported) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
  start(4);
  ASSERT_EQ(record->started.size(), 2u);
  send({"g/01_a", "worker", "error", "state store: timeout", 0});
  EXPECT_EQ(record->started.size(), 2u);
  archive("g/02_b");
  send({"g/02_b", "review", "complete", "archived", 0});
  EXPECT_EQ(record->started.size(), 2u);
  // A control-plane error of a task is reconciliation left to do: exit 3,
  // with the task and its error in the details.
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 3) << (*finished)->summary;
  auto details = (*finished)->details;
  EXPECT_TRUE(std::any_of(details.begin(), details.end(), [](const std::string& d) {
    return d.find("g/01_a") != std::string::npos &&
           d.find("state store: timeout") != std::string::npos;
  })) << (*finished)->summary;
}

TEST_F(scheduler_actor_test, a_task_group_run_starts_and_waits_for_that_group_alone) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "h/01_x", "src/x.cpp");
  // A task of group h vanished into the archive: reconciling it is for a
  // run of group h (or of every group), not this one.
  test::write_minimal_task(ws, "h/02_y", "src/y.cpp");
  runtime::orchestration_record h;
  h.tasks["h/02_y"] = {};
  model->orchestrations["h"] = h;
  archive("h/02_y");
  start(4, "g");
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a"}));
  EXPECT_TRUE(record->removed_logs.empty());
  EXPECT_EQ(model->orchestrations["h"], h);
  archive("g/01_a");
  send({"g/01_a", "review", "complete", "archived", 0});
  // Group h is not this run's: its ready task does not keep the run open.
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a"}));
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 0) << (*finished)->summary;
}

TEST_F(scheduler_actor_test, a_worker_that_succeeded_unseen_is_finished_from_its_locator) {
  // The previous dispatcher died after its worker ended well and before it
  // made the stage step durable; the locator says `succeeded`.
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  auto pol = *runtime::parse_policy(runtime::default_policy_json(), "default");
  ASSERT_FALSE(pol.targets.empty());
  const auto& target = pol.targets.front();
  runtime::task_state st;
  st.work_unit_id = work_unit_of("g/01_a");
  st.active_stage = "worker";
  runtime::route_decision d;
  d.work_unit_id = st.work_unit_id;
  d.stage = "worker";
  d.selected_target = target.id;
  st.decisions["worker"] = d;
  model->tasks["g/01_a"] = st;
  runtime::active_stage_reading r;
  r.probe.kind = runtime::active_probe_kind::stale;
  r.probe.reason = "agent gone";
  r.probe.owned = true;
  r.probe.locator = "runs/x/locator.json";
  r.probe.locator_status = "succeeded";
  r.locator_read = true;
  r.locator_role = "worker";
  r.locator_cli = target.adapter;
  r.locator_model = target.model;
  record->reading["g/01_a"] = r;

  start(4);
  // The worker is not run again: the stage is done, and the next one starts.
  EXPECT_TRUE(model->tasks["g/01_a"].worker_done);
  EXPECT_EQ(model->tasks["g/01_a"].active_stage, "");
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a"}));
  EXPECT_NE(record->started_stage["g/01_a"], "worker");
}

// A task blocked by an earlier run (its worker's failure budget ran out).
class blocked_task_test : public scheduler_actor_test {
protected:
  void SetUp() override {
    test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
    runtime::task_state st;
    st.work_unit_id = work_unit_of("g/01_a");
    ASSERT_FALSE(st.work_unit_id.empty());
    st.blocked = runtime::blocked_info{"failure budget exhausted", "{}"};
    st.failure_budgets["worker"] = 3;
    model->tasks["g/01_a"] = st;
  }
};

TEST_F(blocked_task_test, stays_blocked_and_ends_the_run_with_2) {
  start(4);
  EXPECT_TRUE(record->started.empty());
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 2) << (*finished)->summary;
  EXPECT_TRUE(model->tasks["g/01_a"].blocked.has_value());
}

TEST_F(blocked_task_test, with_retry_blocked_is_cleared_durably_and_started) {
  start(4, "", true);
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a"}));
  EXPECT_FALSE(model->tasks["g/01_a"].blocked.has_value());
  EXPECT_TRUE(model->tasks["g/01_a"].failure_budgets.empty());
  EXPECT_FALSE(finished->has_value());
}

// A task blocked because its work log could not be written (ENOSPC, a
// read-only workspace): the block lifts by itself once the log is writable.
class work_log_blocked_test : public scheduler_actor_test {
protected:
  void SetUp() override {
    test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
    runtime::task_state st;
    st.work_unit_id = work_unit_of("g/01_a");
    st.blocked = runtime::blocked_info{
      "work log failure blocks the task at once (work-log-write-failed): No space left on device",
      R"({"role": "worker", "failure_class": "work-log-write-failed"})"};
    model->tasks["g/01_a"] = st;
  }
};

TEST_F(work_log_blocked_test, is_cleared_and_started_once_the_work_log_is_writable) {
  start(4);
  EXPECT_EQ(record->work_log_probes, (std::vector<std::vector<std::string>>{{"g/01_a"}}));
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a"}));
  EXPECT_FALSE(model->tasks["g/01_a"].blocked.has_value());
}

TEST_F(work_log_blocked_test, stays_blocked_while_the_work_log_cannot_be_written) {
  record->work_log_writable = false;
  start(4);
  EXPECT_EQ(record->work_log_probes.size(), 1u);
  EXPECT_TRUE(record->started.empty());
  EXPECT_TRUE(model->tasks["g/01_a"].blocked.has_value());
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 2) << (*finished)->summary;
}

TEST_F(blocked_task_test, another_block_is_not_probed) {
  start(4);
  EXPECT_TRUE(record->work_log_probes.empty());
}

} // namespace
} // namespace ad::actors
