// The scheduler actor as the interpreter of its machine, on CAF's
// deterministic scheduler, with everything it reads and starts given by the
// test (scheduler_io): a real scan of a workspace in a temp folder, made-up
// active-stage probes, a stand-in state store that keeps the model in
// memory and publishes every change, and stand-in task actors that only
// remember what they were sent. The test plays the task actors' part by
// hand (archiving a task, sending task_ended). The decisions themselves are
// the machine's, tested without actors in tests/runtime/run/
// scheduler_machine_test.cpp; here: that the actor carries out its commands
// (requests, reads answered at once, task actors started and stopped,
// timers, the waiter told) and records each event with its commands.

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
#include "runtime/records/scheduler_records.hpp"
#include "runtime/replay/scheduler_replay.hpp"
#include "runtime/state/model_json.hpp"
#include "runtime/trace/trace_writer.hpp"
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

  runtime::result<runtime::scan_reading> refresh_scan(
    const std::vector<std::string>& also) override {
    auto r = scanner_.refresh({also.begin(), also.end()});
    if (!r)
      return r.error();
    return scanner_.reading(*r);
  }
  std::map<std::string, std::vector<std::string>> archived_task_folders(
    const std::vector<std::string>& tasks) const override {
    std::map<std::string, std::vector<std::string>> out;
    fs::path month = fs::path(task_root_) / "archive" / "2026" / "11";
    for (const auto& task : tasks)
      if (fs::exists(month / task / "complete.log"))
        out[task].push_back((month / task).string());
    return out;
  }
  std::map<std::string, bool> probe_work_logs(const std::vector<std::string>& tasks) override {
    std::map<std::string, bool> out;
    for (const auto& t : tasks)
      out[t] = s_->work_log_writable;
    s_->work_log_probes.push_back(tasks);
    return out;
  }
  runtime::work_log_archive_outcome archive_work_log(const std::string& group) override {
    s_->archived_groups.push_back(group);
    return {true, false, true, "no work log"};
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
    ctx->trace = trace;
    ctx->task_group = std::move(task_group);
    ctx->retry_blocked = retry_blocked;
    ctx->workspace = ws.path().string();
    ctx->task_root = (ws.path() / "agent-task").string();
    ctx->runs_dir = (ws.path() / "state" / "runs").string();
    ctx->max_parallel = max_parallel;
    ctx->pol = *runtime::parse_policy(runtime::default_policy_json(), "default");
    ctx->clk = clk;
    ctx->elsewhere_poll = std::chrono::milliseconds(1000);
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
  std::shared_ptr<runtime::trace_writer> trace =
    runtime::trace_writer::in_memory(runtime::trace_paths{});
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
  // One admission quota batch on the prober it spawned; it failed, and the
  // two workers started anyway.
  EXPECT_EQ(record->quota_batches, 1);
  // Their claims were durable (through the store) before they started.
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

TEST_F(scheduler_actor_test, a_live_agent_is_probed_again_on_the_poll_timer) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  runtime::task_state st;
  st.work_unit_id = work_unit_of("g/01_a");
  st.active_stage = "worker";
  model->tasks["g/01_a"] = st;
  record->probe_answer["g/01_a"] = runtime::active_probe_kind::live;
  start(4);
  EXPECT_TRUE(record->started.empty());
  auto probes = record->probed.size();
  record->probe_answer["g/01_a"] = runtime::active_probe_kind::stale;
  sched.advance_time(std::chrono::milliseconds(1000));
  sched.run();
  EXPECT_GT(record->probed.size(), probes);
  EXPECT_EQ(record->started, (std::vector<std::string>{"g/01_a"}));
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
  EXPECT_EQ(record->started.size(), 2u);
}

TEST_F(scheduler_actor_test, a_state_store_refusal_ends_the_run_blocked) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  record->refuse_applies = true;
  start(4);
  EXPECT_TRUE(record->started.empty());
  ASSERT_TRUE(finished->has_value());
  EXPECT_EQ((*finished)->exit_code, 2);
  EXPECT_NE((*finished)->summary.find("disk full"), std::string::npos) << (*finished)->summary;
}

TEST_F(scheduler_actor_test, a_claim_violation_note_stops_the_named_task) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  start(4);
  ASSERT_EQ(record->started, (std::vector<std::string>{"g/01_a"}));
  caf::anon_send(scheduler, messages::claim_violation_noted{clk->now(), "g/01_a",
                                                            "g_01_a__p1__worker__a01",
                                                            "/w/README.md", {}, "g/01_a", "blocked"});
  sched.run();
  EXPECT_EQ(record->stops["g/01_a"], 1);
}

// Each event the actor fed its machine is recorded with the commands it got
// back, one pair per event; a new machine fed the recorded events decides
// the same commands.
TEST_F(scheduler_actor_test, records_each_event_with_its_commands_and_replays_them) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02+01_b", "src/b.cpp");
  start(4);
  archive("g/01_a");
  send({"g/01_a", "review", "complete", "archived", 0});
  archive("g/02+01_b");
  send({"g/02+01_b", "review", "complete", "archived", 0});
  ASSERT_TRUE(finished->has_value());
  auto records = trace->kept_records();
  ASSERT_FALSE(records.empty());
  std::set<std::string> kinds;
  for (std::size_t i = 0; i < records.size(); ++i) {
    kinds.insert(records[i].kind);
    if (records[i].dir == runtime::trace_direction::edge) {
      ASSERT_LT(i + 1, records.size());
      EXPECT_EQ(records[i + 1].kind, "scheduler.commands");
      EXPECT_EQ(records[i + 1].cause, records[i].seq);
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"scheduler.event", "scheduler.commands"}));
  EXPECT_TRUE(runtime::ends_run(records.back()));

  runtime::trace_file file;
  file.records = records;
  auto pol = *runtime::parse_policy(runtime::default_policy_json(), "default");
  auto zone = runtime::time_zone::fixed("UTC", 0);
  runtime::scheduler_context base;
  base.task_root = (ws.path() / "agent-task").string();
  base.max_parallel = 4;
  runtime::replay_handlers handlers;
  runtime::add_scheduler_machine_replay(handlers, pol, zone, base);
  auto same = runtime::replay_trace(file, handlers, runtime::trace_paths{});
  EXPECT_FALSE(same.divergence) << runtime::render_divergence(*same.divergence);
  EXPECT_GT(same.compared, 5);

  // A task_ended the run never had diverges where the machine decides otherwise.
  for (auto& r : file.records)
    if (r.kind == "scheduler.event" && r.body.value("event", "") == "task_ended") {
      r.body["outcome"] = "error";
      break;
    }
  runtime::replay_handlers again;
  runtime::add_scheduler_machine_replay(again, pol, zone, base);
  auto changed = runtime::replay_trace(file, again, runtime::trace_paths{});
  EXPECT_TRUE(changed.divergence);
}

// The machine takes a snapshot's state without a copy; the trace holds the
// event as it came in, state and all, so a replay starts from it.
TEST_F(scheduler_actor_test, the_recorded_state_snapshot_holds_the_state_the_machine_took) {
  two_observed_tasks();
  (*model).tasks["g/02_b"].work_unit_id = "g/02_b::plan-1::tag-old";
  (*model).tasks["g/02_b"].counters["no_progress"] = 2;
  auto before = *model;  // the stand-in store changes *model as the run goes
  start(1);
  auto records = trace->kept_records();
  const runtime::trace_record* snapshot = nullptr;
  for (const auto& r : records)
    if (r.kind == "scheduler.event" && r.body.value("event", "") == "state_snapshot")
      snapshot = &r;
  ASSERT_NE(snapshot, nullptr);
  auto recorded = runtime::state_from_json(snapshot->body.at("state"), "trace");
  ASSERT_TRUE(recorded) << recorded.error().to_string();
  EXPECT_EQ(*recorded, before);
  EXPECT_EQ(recorded->tasks.at("g/02_b").counters.at("no_progress"), 2);
}

} // namespace
} // namespace ad::actors
