// The scheduler machine without actors: the test is its interpreter. It
// answers every command the way the run does, from a real scan of a
// workspace in a temp folder (incremental, with its folder watch), a state
// store kept in memory that publishes every change before it acknowledges
// it, and made-up answers for the probes of active stages, work logs,
// archive moves and quota batches. The test plays the task actors' part by
// hand (archiving a task, feeding task_ended), so every pass the machine
// makes is one the test caused.

#include "runtime/run/scheduler_machine.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/run/run_views.hpp"
#include "runtime/workspace/workspace_scanner.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;
using test::temp_dir;

class scheduler_machine_test : public ::testing::Test {
protected:
  // A new machine over the workspace, fed `begun` and every answer after it.
  void start(int max_parallel, std::string task_group = "", bool retry_blocked = false) {
    ctx.pol = &pol;
    ctx.zone = &zone;
    ctx.task_root = (ws.path() / "agent-task").string();
    ctx.task_group = task_group;
    ctx.max_parallel = max_parallel;
    ctx.retry_blocked = retry_blocked;
    ctx.poll_every = 1'000;
    scanner.emplace(ws.path(),
                    task_group.empty() ? std::nullopt : std::optional<std::string>(task_group),
                    watch);
    machine.emplace(ctx);
    feed(sched_ev::begun{});
  }

  // Feeds one event, then every answer the commands it caused have at once
  // (the store's publications and acknowledgements included), in order.
  void feed(scheduler_event e) {
    queue.push_back(std::move(e));
    while (!queue.empty()) {
      auto next = std::move(queue.front());
      queue.pop_front();
      for (auto& c : machine->step(now, next))
        if (!intercept || !intercept(c))
          carry_out(std::move(c));
    }
  }

  // Tasks g/01_a and g/02_b in the workspace; the state says g/01_a's
  // worker stage is active (left so by an earlier dispatcher).
  void two_tasks_the_first_in_its_worker_stage() {
    test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
    test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
    task_state st;
    st.work_unit_id = work_unit_now("g/01_a");
    ASSERT_FALSE(st.work_unit_id.empty());
    st.active_stage = "worker";
    model.tasks["g/01_a"] = st;
  }

  // Another actor made changes durable: the machine sees the publication.
  void store_apply(std::vector<state_change> changes) {
    for (const auto& c : changes)
      (void) apply_change(model, c);
    feed(sched_ev::state_published{++seq, std::move(changes)});
  }

  void end(const std::string& task, const std::string& stage, const std::string& outcome,
           const std::string& reason, millis pause = 0) {
    feed(sched_ev::task_ended{task, stage, outcome, reason, pause});
  }

  // The timer fired `ms` later.
  void poll_after(millis ms) {
    now += ms;
    ASSERT_TRUE(wake.has_value());
    wake.reset();
    feed(sched_ev::poll{});
  }

  void carry_out(scheduler_command c) {
    std::visit(
      [&](auto& x) {
        using T = std::decay_t<decltype(x)>;
        commands.push_back(std::string(command_name(scheduler_command{x})));
        if constexpr (std::is_same_v<T, sched_cmd::subscribe_state>) {
          queue.push_back(sched_ev::state_snapshot{seq, model});
        } else if constexpr (std::is_same_v<T, sched_cmd::make_durable>) {
          ++applies;
          if (refuse_applies) {
            queue.push_back(sched_ev::request_failed{scheduler_peer::state_store, "disk full"});
            return;
          }
          for (const auto& ch : x.changes) {
            (void) apply_change(model, ch);
            applied.push_back(ch);
          }
          ++seq;
          queue.push_back(sched_ev::state_published{seq, x.changes});
          queue.push_back(sched_ev::state_applied{seq});
        } else if constexpr (std::is_same_v<T, sched_cmd::probe_work_logs>) {
          work_log_probes.push_back(x.tasks);
          sched_ev::work_logs_probed r;
          for (const auto& t : x.tasks)
            r.writable[t] = work_log_writable;
          queue.push_back(std::move(r));
        } else if constexpr (std::is_same_v<T, sched_cmd::read_active_stages>) {
          stage_reads.push_back(x.state);
          queue.push_back(sched_ev::active_stages_read{readings_of(x.state)});
        } else if constexpr (std::is_same_v<T, sched_cmd::refresh_scan>) {
          std::vector<fs::path> also(x.also.begin(), x.also.end());
          auto r = scanner->refresh(also);
          if (r.is_ok())
            queue.push_back(sched_ev::scan_read{scanner->reading(*r)});
          else
            queue.push_back(sched_ev::scan_failed{r.error().message()});
        } else if constexpr (std::is_same_v<T, sched_cmd::find_archives>) {
          found_archives.push_back(x.tasks);
          sched_ev::archives_found r;
          fs::path month = ws.path() / "agent-task/archive/2026/11";
          for (const auto& t : x.tasks)
            if (fs::exists(month / t / "complete.log"))
              r.folders[t].push_back((month / t).string());
          queue.push_back(std::move(r));
        } else if constexpr (std::is_same_v<T, sched_cmd::archive_work_logs>) {
          sched_ev::work_logs_archived r;
          for (const auto& g : x.groups) {
            archived_groups.push_back(g);
            r.moved[g] = {true, false, true, "no work log"};
          }
          queue.push_back(std::move(r));
        } else if constexpr (std::is_same_v<T, sched_cmd::remove_attempt_logs>) {
          removed_logs.push_back(x.task);
        } else if constexpr (std::is_same_v<T, sched_cmd::run_quota_probes>) {
          ++quota_batches;
          if (quota_answer)
            queue.push_back(sched_ev::quota_probed{*quota_answer});
          else
            queue.push_back(sched_ev::request_failed{scheduler_peer::quota_prober, "no probe"});
        } else if constexpr (std::is_same_v<T, sched_cmd::tell_supervisor>) {
          told_supervisor.push_back(x.snapshot);
        } else if constexpr (std::is_same_v<T, sched_cmd::start_task>) {
          started.push_back(x.spec.name);
          specs.push_back(x.spec);
        } else if constexpr (std::is_same_v<T, sched_cmd::stop_task>) {
          ++stops[x.task];
        } else if constexpr (std::is_same_v<T, sched_cmd::wake_at>) {
          wake = x.at;
        } else if constexpr (std::is_same_v<T, sched_cmd::checkpoint>) {
          checkpoints.push_back(x.name);
        } else if constexpr (std::is_same_v<T, sched_cmd::show>) {
          shown.push_back(x.event);
        } else if constexpr (std::is_same_v<T, sched_cmd::finish_run>) {
          finished = x;
        }
      },
      c);
  }

  // One reading per task of `state` with an active stage: the given one,
  // else the probe answer (stale when none).
  std::vector<active_stage_reading> readings_of(const state_model& state) {
    std::vector<active_stage_reading> out;
    std::vector<std::string> names;
    for (const auto& [name, st] : state.tasks) {
      if (st.active_stage.empty())
        continue;
      active_stage_reading r;
      if (auto given = reading.find(name); given != reading.end())
        r = given->second;
      r.task = name;
      r.state = st;
      names.push_back(name);
      if (!reading.count(name)) {
        auto answer = probe_answer.find(name);
        r.probe.kind = answer == probe_answer.end() ? active_probe_kind::stale : answer->second;
        r.probe.reason = r.probe.kind == active_probe_kind::live ? "pid 4242 alive" : "agent gone";
      }
      out.push_back(std::move(r));
    }
    probed.push_back(std::move(names));
    return out;
  }

  // What a task actor does when its review archived the task.
  void archive(const std::string& task) {
    ws.write("agent-task/" + task + "/complete.log", "done\n");
    auto to = ws.path() / "agent-task/archive/2026/11" / task;
    fs::create_directories(to.parent_path());
    fs::rename(ws.path() / "agent-task" / task, to);
  }

  // Tasks g/01_a and g/02_b, both known to the group's orchestration record
  // (a dispatcher saw them before).
  void two_observed_tasks() {
    test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
    test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
    orchestration_record rec;
    rec.tasks["g/01_a"] = {};
    rec.tasks["g/02_b"] = {};
    model.orchestrations["g"] = rec;
  }

  // The work unit the scan gives `task` now.
  std::string work_unit_now(const std::string& task) {
    workspace_scanner s(ws.path(), std::nullopt, scanner_watch::none);
    EXPECT_TRUE(s.refresh().is_ok());
    const auto* t = s.find(task);
    return t ? work_unit_of(*t) : "";
  }

  int exit_code() const { return finished ? finished->exit_code : -1; }
  std::string summary() const { return finished ? finished->summary : "(not finished)"; }

  std::vector<run_event> shown_of(run_event_kind kind) const {
    std::vector<run_event> out;
    for (const auto& e : shown)
      if (e.kind == kind)
        out.push_back(e);
    return out;
  }

  temp_dir ws;
  policy pol = *parse_policy(default_policy_json(), "default");
  time_zone zone = *load_time_zone(pol.timezone);
  scheduler_context ctx;
  scanner_watch watch = scanner_watch::inotify;
  std::optional<workspace_scanner> scanner;
  std::optional<scheduler_machine> machine;
  std::deque<scheduler_event> queue;
  millis now = 1'795'000'000'000;
  // The store.
  state_model model;
  uint64_t seq = 0;
  bool refuse_applies = false;
  int applies = 0;
  std::vector<state_change> applied;
  // The readings given.
  std::map<std::string, active_probe_kind> probe_answer;
  std::map<std::string, active_stage_reading> reading;
  bool work_log_writable = true;
  std::optional<probe_snapshot> quota_answer; // none: every batch fails
  // Sees each command first; true: the test carries it out itself.
  std::function<bool(scheduler_command&)> intercept;
  // What the machine asked for.
  std::vector<std::string> commands;
  std::vector<std::string> started;
  std::vector<task_spec> specs;
  std::map<std::string, int> stops;
  std::vector<std::string> removed_logs;
  std::vector<std::string> archived_groups;
  std::vector<std::vector<std::string>> probed;
  std::vector<state_model> stage_reads; // the state each read_active_stages carried
  std::vector<std::vector<std::string>> work_log_probes;
  std::vector<std::vector<std::string>> found_archives;
  int quota_batches = 0;
  std::vector<probe_snapshot> told_supervisor;
  std::optional<millis> wake;
  std::vector<std::string> checkpoints;
  std::vector<run_event> shown;
  std::optional<sched_cmd::finish_run> finished;
};

TEST_F(scheduler_machine_test, starts_ready_tasks_up_to_the_cap_and_the_next_as_one_completes) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
  test::write_minimal_task(ws, "g/03_c", "src/c.cpp");
  start(2);
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a", "g/02_b"}));
  // One admission quota batch for the two workers; it failed, and they
  // started anyway, without a snapshot.
  EXPECT_EQ(quota_batches, 1);
  EXPECT_TRUE(told_supervisor.empty());
  EXPECT_FALSE(specs.front().has_admission_quota);
  // Their claims were durable before they started.
  auto first_start = std::find(commands.begin(), commands.end(), "start_task");
  EXPECT_NE(std::find(commands.begin(), first_start, "make_durable"), first_start);
  EXPECT_TRUE(model.claims.count("g/01_a"));
  EXPECT_TRUE(model.claims.count("g/02_b"));
  EXPECT_FALSE(model.claims.count("g/03_c"));
  // The first pass listed every task.
  auto scanned = shown_of(run_event_kind::tasks_scanned);
  ASSERT_EQ(scanned.size(), 1u);
  EXPECT_EQ(scanned[0].tasks.size(), 3u);
  EXPECT_FALSE(finished.has_value());

  archive("g/01_a");
  end("g/01_a", "review", "complete", "archived");
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a", "g/02_b", "g/03_c"}));
  EXPECT_FALSE(finished.has_value());

  archive("g/02_b");
  end("g/02_b", "review", "complete", "archived");
  archive("g/03_c");
  end("g/03_c", "review", "complete", "archived");
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 0) << summary();
  EXPECT_EQ(started.size(), 3u); // nothing started twice
  EXPECT_TRUE(machine->finished());
  // The summary is the last event shown, with the completions counted.
  ASSERT_FALSE(shown.empty());
  EXPECT_EQ(shown.back().kind, run_event_kind::summary);
  EXPECT_EQ(commands.back(), "finish_run");
  // A finished machine takes nothing more.
  EXPECT_TRUE(machine->step(now, sched_ev::poll{}).empty());
}

TEST_F(scheduler_machine_test, the_summary_carries_what_the_state_says_the_run_spent) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  start(1);
  token_usage a, b;
  a.input_tokens = 1200;
  a.output_tokens = 40;
  b.input_tokens = 300;
  b.cost_usd = 0.5;
  // One attempt published twice (an adopted attempt's end, say) counts once.
  store_apply({record_attempt_usage{"g__01_a__p1__worker__a01", "g/01_a", "sim-a", a}});
  store_apply({record_attempt_usage{"g__01_a__p1__review__a01", "g/01_a", "sim-b", b},
               record_attempt_usage{"g__01_a__p1__worker__a01", "g/01_a", "sim-a", a}});
  archive("g/01_a");
  end("g/01_a", "review", "complete", "archived");
  ASSERT_TRUE(finished.has_value());
  ASSERT_EQ(shown.back().kind, run_event_kind::summary);
  EXPECT_EQ(shown.back().usage, a + b);
}

TEST_F(scheduler_machine_test, the_scan_copy_answers_dependencies_as_the_scanner_does) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02+01_b", "src/b.cpp");
  start(4);
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  archive("g/01_a");
  end("g/01_a", "review", "complete", "archived");
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a", "g/02+01_b"}));
  EXPECT_EQ(machine->scan().completed_folders("g", "01"),
            scanner->completed_folders("g", "01"));
  EXPECT_EQ(machine->scan().completed_folders("g", "01").size(), 1u);
  EXPECT_EQ(machine->scan().tasks().size(), scanner->tasks().size());
}

TEST_F(scheduler_machine_test, a_full_rescan_every_pass_decides_the_same) {
  watch = scanner_watch::none;
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02+01_b", "src/b.cpp");
  start(4);
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  archive("g/01_a");
  end("g/01_a", "review", "complete", "archived");
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a", "g/02+01_b"}));
}

TEST_F(scheduler_machine_test, a_live_agent_left_by_a_dead_dispatcher_is_followed_not_started) {
  two_tasks_the_first_in_its_worker_stage();
  probe_answer["g/01_a"] = active_probe_kind::live;

  start(4);
  // Start-up probed the one active stage, and only the other task started.
  ASSERT_FALSE(probed.empty());
  EXPECT_EQ(probed.front(), std::vector<std::string>{"g/01_a"});
  EXPECT_EQ(started, (std::vector<std::string>{"g/02_b"}));
  EXPECT_EQ(machine->running_elsewhere().count("g/01_a"), 1u);
  EXPECT_EQ(model.tasks["g/01_a"].active_stage, "worker");
  ASSERT_TRUE(wake.has_value());
  EXPECT_EQ(*wake, now + 1'000);

  // The poll of the tasks running elsewhere fires while the agent still lives: nothing starts.
  auto probes = probed.size();
  poll_after(1'000);
  EXPECT_GT(probed.size(), probes);
  EXPECT_EQ(probed.back(), std::vector<std::string>{"g/01_a"}); // the one running elsewhere alone
  EXPECT_EQ(started, (std::vector<std::string>{"g/02_b"}));

  // The agent is gone: its stage is cleared durably, then the task starts here.
  probe_answer["g/01_a"] = active_probe_kind::stale;
  poll_after(1'000);
  EXPECT_EQ(started, (std::vector<std::string>{"g/02_b", "g/01_a"}));
  EXPECT_EQ(model.tasks["g/01_a"].active_stage, "");
  bool cleared = std::any_of(applied.begin(), applied.end(), [](const auto& c) {
    const auto* x = std::get_if<clear_active_stage>(&c);
    return x && x->task == "g/01_a";
  });
  EXPECT_TRUE(cleared);
  EXPECT_TRUE(machine->running_elsewhere().empty());
  EXPECT_FALSE(finished.has_value());
}

TEST_F(scheduler_machine_test, the_start_up_reading_carries_only_the_active_tasks) {
  two_tasks_the_first_in_its_worker_stage();
  model.tasks["g/02_b"] = task_state{};
  model.tasks["g/00_done"] = task_state{};
  model.attempt_counters[{"g/01_a", 1, "worker"}] = 2;
  model.attempt_counters[{"g/02_b", 1, "worker"}] = 1;
  model.attempt_counters[{"g/00_done", 3, "review"}] = 4;
  probe_answer["g/01_a"] = active_probe_kind::live;

  start(4);
  ASSERT_FALSE(stage_reads.empty());
  const auto& read = stage_reads.front();
  EXPECT_EQ(read.tasks.size(), 1u);
  EXPECT_EQ(read.tasks.count("g/01_a"), 1u);
  EXPECT_EQ(read.attempt_counters,
            (std::map<attempt_key, int64_t>{{{"g/01_a", 1, "worker"}, 2}}));
  EXPECT_EQ(machine->running_elsewhere().count("g/01_a"), 1u);
}

TEST_F(scheduler_machine_test, a_kept_attempt_is_adopted_first_with_its_node) {
  two_tasks_the_first_in_its_worker_stage();
  active_stage_reading r;
  r.probe.kind = active_probe_kind::kept;
  r.probe.reason = "kept by its keeper";
  r.probe.locator = "/runs/x/locator.json";
  r.probe.kept.identity = "g_01_a__p1__worker__a03";
  r.probe.kept.plan_number = 1;
  r.probe.kept.attempt = 3;
  r.probe.kept.role = "worker";
  r.probe.kept.keeper_pid = 777;
  r.probe.kept.keeper_start_token = "tok";
  r.probe.kept.node = "node-b"; // distributed mode: the node that runs it
  reading["g/01_a"] = r;

  start(4);
  // The adoption starts before the admitted task, and carries its node.
  ASSERT_EQ(started, (std::vector<std::string>{"g/01_a", "g/02_b"}));
  const auto& adopted = specs.front();
  EXPECT_TRUE(adopted.adopting);
  EXPECT_EQ(adopted.last_attempt, 3);
  EXPECT_EQ(adopted.adopted.keeper_pid, 777);
  EXPECT_EQ(adopted.adopted.node, "node-b");
  EXPECT_EQ(adopted.adopted.locator, "/runs/x/locator.json");
  EXPECT_EQ(adopted.task_dir, (ws.path() / "agent-task/g/01_a").string());
  EXPECT_FALSE(specs.back().adopting);
}

TEST_F(scheduler_machine_test, shutdown_stops_every_running_task_and_ends_with_130) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
  test::write_minimal_task(ws, "g/03_c", "src/c.cpp");
  start(2);
  ASSERT_EQ(started.size(), 2u);
  feed(sched_ev::shutdown{});
  EXPECT_EQ(stops["g/01_a"], 1);
  EXPECT_EQ(stops["g/02_b"], 1);
  feed(sched_ev::shutdown{}); // a second signal changes nothing
  EXPECT_EQ(stops["g/01_a"], 1);
  // It waits for its task actors to end.
  EXPECT_FALSE(finished.has_value());
  end("g/01_a", "worker", "cancelled", "interrupted");
  EXPECT_FALSE(finished.has_value());
  end("g/02_b", "worker", "cancelled", "interrupted");
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 130);
  // Nothing was started after the stop.
  EXPECT_EQ(started.size(), 2u);
}

TEST_F(scheduler_machine_test, a_stop_while_admitting_starts_nothing_and_ends_with_130) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
  // The quota batch is under way when the signal comes.
  quota_answer = probe_snapshot{};
  std::vector<scheduler_command> held;
  intercept = [&](scheduler_command& c) {
    if (!std::holds_alternative<sched_cmd::run_quota_probes>(c))
      return false;
    held.push_back(std::move(c));
    return true;
  };
  start(4);
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(machine->phase(), scheduler_phase::probing_quota);
  feed(sched_ev::shutdown{});
  EXPECT_FALSE(finished.has_value()); // the pass is still under way
  feed(sched_ev::quota_probed{});
  EXPECT_TRUE(started.empty());
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 130) << summary();
}

// g/01_a and g/02_b run; g/03+02_c (claiming x.cpp) waits for g/02_b. The
// claim watcher reports that g/01_a's running attempt wrote x.cpp.
class claim_violation_wait_test : public scheduler_machine_test {
protected:
  void SetUp() override {
    test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
    test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
    test::write_minimal_task(ws, "g/03+02_c", "src/x.cpp");
    start(4);
    ASSERT_EQ(started, (std::vector<std::string>{"g/01_a", "g/02_b"}));
    x_cpp = (fs::canonical(ws.path()) / "src/x.cpp").string();
    feed(sched_ev::claim_violation{{{x_cpp, attempt, "g/01_a"}}, "g/01_a", "", ""});
    // g/02_b completes: its dependent would start, but x.cpp is still
    // being written by another agent.
    archive("g/02_b");
    end("g/02_b", "review", "complete", "archived");
    EXPECT_EQ(started, (std::vector<std::string>{"g/01_a", "g/02_b"}));
  }

  const std::string attempt = "g_01_a__p1__worker__a01";
  std::string x_cpp;
};

TEST_F(claim_violation_wait_test, the_claimer_starts_once_the_violating_attempt_ended) {
  feed(sched_ev::violation_ended{attempt});
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a", "g/02_b", "g/03+02_c"}));
  // An end of an attempt that held nothing back changes nothing.
  auto before = commands.size();
  feed(sched_ev::violation_ended{"other"});
  EXPECT_EQ(started.size(), 3u);
  EXPECT_EQ(commands.size(), before);
}

TEST_F(claim_violation_wait_test, the_claimer_starts_once_the_violators_task_ended) {
  // The task's end arrived before its attempt's: the attempt is over too.
  // (g/01_a's next stage starts again in the same pass, in index order.)
  end("g/01_a", "worker", "advance", "worker done");
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a", "g/02_b", "g/01_a", "g/03+02_c"}));
}

TEST_F(scheduler_machine_test, a_block_for_a_claim_violation_stops_the_running_task) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  start(4);
  ASSERT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  // The watcher made the block durable before its note.
  std::string reason = "claim violation: attempt g_01_a__p1__worker__a01 wrote /w/README.md "
                       "outside the task's claim";
  store_apply({set_blocked{"g/01_a", {reason, ""}}});
  feed(sched_ev::claim_violation{{}, "g/01_a", "g/01_a", reason});
  EXPECT_EQ(stops["g/01_a"], 1);
  // Its actor ends cancelled; the task stays blocked and the run ends.
  end("g/01_a", "worker", "cancelled", reason);
  EXPECT_EQ(started.size(), 1u);
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 2) << summary();
}

TEST_F(scheduler_machine_test, a_task_archived_behind_its_back_is_completed_without_an_agent) {
  // One task vanished into the archive while no dispatcher ran (its review
  // outlived the last one).
  two_observed_tasks();
  archive("g/01_a");
  start(4);
  EXPECT_EQ(started, (std::vector<std::string>{"g/02_b"}));
  EXPECT_EQ(found_archives.front(), std::vector<std::string>{"g/01_a"});
  EXPECT_EQ(removed_logs, std::vector<std::string>{"g/01_a"});
  EXPECT_EQ(model.orchestrations["g"].tasks["g/01_a"].status,
            orchestration_task_status::complete);
  auto done = shown_of(run_event_kind::task_finished);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].task, "g/01_a");
  EXPECT_EQ(done[0].reason.rfind("archived at ", 0), 0u);

  // Once the last task's review archived it (and recorded that, as a task
  // actor does), the group closes and its work log moves.
  archive("g/02_b");
  store_apply({complete_orchestration_task{"g", "g/02_b", "agent-task/archive/2026/11/g/02_b"}});
  end("g/02_b", "review", "complete", "archived");
  EXPECT_EQ(archived_groups, std::vector<std::string>{"g"});
  EXPECT_EQ(model.orchestrations["g"].status, orchestration_status::complete);
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 0) << summary();
}

TEST_F(scheduler_machine_test, a_group_whose_last_tasks_were_archived_behind_its_back_closes) {
  // Every task of the group vanished into the archive while no dispatcher
  // ran: the restart completes them and closes the group in the same run.
  two_observed_tasks();
  archive("g/01_a");
  archive("g/02_b");
  start(4);
  EXPECT_TRUE(started.empty());
  EXPECT_EQ(model.orchestrations["g"].tasks["g/02_b"].status,
            orchestration_task_status::complete);
  EXPECT_EQ(archived_groups, std::vector<std::string>{"g"});
  EXPECT_EQ(model.orchestrations["g"].status, orchestration_status::complete);
  // The work log moved only once the completions were durable.
  auto move = std::find(commands.begin(), commands.end(), "archive_work_logs");
  ASSERT_NE(move, commands.end());
  EXPECT_NE(std::find(commands.begin(), move, "make_durable"), move);
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 0) << summary();
}

TEST_F(scheduler_machine_test, a_work_log_that_cannot_move_keeps_the_group_open_as_an_error) {
  two_observed_tasks();
  archive("g/01_a");
  archive("g/02_b");
  intercept = [&](scheduler_command& c) {
    auto* a = std::get_if<sched_cmd::archive_work_logs>(&c);
    if (!a)
      return false;
    sched_ev::work_logs_archived r;
    for (const auto& g : a->groups)
      r.moved[g] = {true, false, false, "read-only file system"};
    queue.push_back(std::move(r));
    return true;
  };
  start(4);
  EXPECT_NE(model.orchestrations["g"].status, orchestration_status::complete);
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 3) << summary();
  EXPECT_TRUE(std::any_of(finished->details.begin(), finished->details.end(),
                          [](const std::string& d) {
                            return d.find("work-log[g]") != std::string::npos;
                          }))
    << summary();
}

TEST_F(scheduler_machine_test, a_completion_the_store_refused_removes_no_logs_and_moves_no_work_log) {
  // Reconciliation completes both vanished tasks and closes their group,
  // but the store refuses the change: nothing that change would justify
  // happens (attempt logs stay, the work log stays), and the run ends
  // blocked.
  two_observed_tasks();
  archive("g/01_a");
  archive("g/02_b");
  refuse_applies = true;
  start(4);
  EXPECT_TRUE(removed_logs.empty()) << "attempt logs went before the completion was durable";
  EXPECT_TRUE(archived_groups.empty()) << "the work log moved before the completion was durable";
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 2) << summary();
}

TEST_F(scheduler_machine_test, a_claim_conflict_waits_for_the_holder_and_then_starts) {
  test::write_minimal_task(ws, "g/01_a", "src/shared.cpp");
  test::write_minimal_task(ws, "g/02_b", "src/shared.cpp");
  start(4);
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  EXPECT_FALSE(model.claims.count("g/02_b"));
  auto waiting = shown_of(run_event_kind::task_waiting);
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(waiting[0].task, "g/02_b");

  // The holder completes: its claim goes (as its task actor releases it),
  // and the waiter starts with the claim now its own.
  archive("g/01_a");
  store_apply({release_claim{"g/01_a"}});
  end("g/01_a", "review", "complete", "archived");
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a", "g/02_b"}));
  EXPECT_TRUE(model.claims.count("g/02_b"));
}

TEST_F(scheduler_machine_test, capacity_waiters_start_in_index_order_as_slots_free) {
  for (const auto* t : {"g/01_a", "g/02_b", "g/03_c", "g/04_d"})
    test::write_minimal_task(ws, t, std::string("src/") + t[5] + ".cpp");
  start(1);
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  auto waiting = shown_of(run_event_kind::task_waiting);
  ASSERT_EQ(waiting.size(), 3u);
  EXPECT_EQ(waiting[0].reason, "capacity: 1 of 1 running");
  end("g/01_a", "worker", "advance", "worker done");
  // g/01_a's next stage comes first again: it is first in index order.
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a", "g/01_a"}));
  archive("g/01_a");
  end("g/01_a", "review", "complete", "archived");
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a", "g/01_a", "g/02_b"}));
  auto done = shown_of(run_event_kind::task_finished);
  ASSERT_GE(done.size(), 2u);
  EXPECT_EQ(done[0].outcome, "stage-done");
  EXPECT_EQ(done[1].outcome, "complete");
}

TEST_F(scheduler_machine_test, a_paused_task_is_admitted_again_only_after_its_pause) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  start(4);
  ASSERT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  // An unchanged review pauses the task for 10 s.
  end("g/01_a", "review", "pause", "review made no progress", 10'000);
  EXPECT_EQ(started.size(), 1u);
  EXPECT_FALSE(finished.has_value()); // a paused task keeps the run open
  EXPECT_EQ(machine->paused().count("g/01_a"), 1u);

  // Polls before the pause ends start nothing.
  poll_after(5'000);
  EXPECT_EQ(started.size(), 1u);
  poll_after(5'000);
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a", "g/01_a"}));
  EXPECT_TRUE(machine->paused().empty());
}

TEST_F(scheduler_machine_test, a_state_store_refusal_stops_admissions_and_ends_the_run_blocked) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  refuse_applies = true;
  start(4);
  // The claim could not be made durable, so nothing started.
  EXPECT_TRUE(started.empty());
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 2);
  EXPECT_NE(summary().find("state store refused a change"), std::string::npos) << summary();
  EXPECT_NE(summary().find("disk full"), std::string::npos) << summary();
}

TEST_F(scheduler_machine_test, a_state_store_that_cannot_subscribe_ends_the_run_blocked) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  ctx.pol = &pol;
  ctx.zone = &zone;
  ctx.task_root = (ws.path() / "agent-task").string();
  machine.emplace(ctx);
  auto first = machine->step(now, sched_ev::begun{});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<sched_cmd::subscribe_state>(first[0]));
  for (auto& c : machine->step(now, sched_ev::request_failed{scheduler_peer::state_store, "timeout"}))
    carry_out(std::move(c));
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 2);
  EXPECT_NE(summary().find("state store unavailable: timeout"), std::string::npos) << summary();
}

TEST_F(scheduler_machine_test, a_workspace_without_agent_task_ends_the_run_blocked) {
  ws.write("README.md", "no tasks here\n");
  start(4);
  EXPECT_TRUE(started.empty());
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 2);
  EXPECT_NE(summary().find("workspace scan failed"), std::string::npos) << summary();
}

TEST_F(scheduler_machine_test, a_scan_that_fails_later_stops_admissions_and_lets_tasks_end) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
  start(1);
  ASSERT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  // agent-task/ goes away while g/01_a runs; its end finds no scan.
  fs::remove_all(ws.path() / "agent-task");
  end("g/01_a", "worker", "advance", "worker done");
  EXPECT_EQ(started.size(), 1u);
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 2);
  EXPECT_NE(summary().find("workspace scan failed"), std::string::npos) << summary();
}

TEST_F(scheduler_machine_test, a_task_that_ended_in_error_is_not_started_again_and_is_reported) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "g/02_b", "src/b.cpp");
  start(4);
  ASSERT_EQ(started.size(), 2u);
  end("g/01_a", "worker", "error", "state store: timeout");
  EXPECT_EQ(started.size(), 2u);
  archive("g/02_b");
  end("g/02_b", "review", "complete", "archived");
  EXPECT_EQ(started.size(), 2u);
  // A control-plane error of a task is reconciliation left to do: exit 3,
  // with the task and its error in the details.
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 3) << summary();
  EXPECT_TRUE(std::any_of(finished->details.begin(), finished->details.end(),
                          [](const std::string& d) {
                            return d.find("g/01_a") != std::string::npos &&
                                   d.find("state store: timeout") != std::string::npos;
                          }))
    << summary();
  EXPECT_EQ(shown_of(run_event_kind::task_failed).size(), 1u);
}

TEST_F(scheduler_machine_test, a_task_group_run_starts_and_waits_for_that_group_alone) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  test::write_minimal_task(ws, "h/01_x", "src/x.cpp");
  // A task of group h vanished into the archive: reconciling it is for a
  // run of group h (or of every group), not this one.
  test::write_minimal_task(ws, "h/02_y", "src/y.cpp");
  orchestration_record h;
  h.tasks["h/02_y"] = {};
  model.orchestrations["h"] = h;
  archive("h/02_y");
  start(4, "g");
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  EXPECT_TRUE(removed_logs.empty());
  EXPECT_EQ(model.orchestrations["h"], h);
  archive("g/01_a");
  end("g/01_a", "review", "complete", "archived");
  // Group h is not this run's: its ready task does not keep the run open.
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 0) << summary();
}

TEST_F(scheduler_machine_test, a_worker_that_succeeded_unseen_is_finished_from_its_locator) {
  // The previous dispatcher died after its worker ended well and before it
  // made the stage step durable; the locator says `succeeded`.
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  ASSERT_FALSE(pol.targets.empty());
  const auto& target = pol.targets.front();
  task_state st;
  st.work_unit_id = work_unit_now("g/01_a");
  st.active_stage = "worker";
  route_decision d;
  d.work_unit_id = st.work_unit_id;
  d.stage = "worker";
  d.selected_target = target.id;
  st.decisions["worker"] = d;
  model.tasks["g/01_a"] = st;
  active_stage_reading r;
  r.probe.kind = active_probe_kind::stale;
  r.probe.reason = "agent gone";
  r.probe.owned = true;
  r.probe.locator = "runs/x/locator.json";
  r.probe.locator_status = "succeeded";
  r.locator_read = true;
  r.locator_role = "worker";
  r.locator_cli = target.adapter;
  r.locator_model = target.model;
  reading["g/01_a"] = r;

  start(4);
  // The worker is not run again: the stage is done, and the next one starts.
  EXPECT_TRUE(model.tasks["g/01_a"].worker_done);
  EXPECT_EQ(model.tasks["g/01_a"].active_stage, "");
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  EXPECT_NE(specs.back().stage_name(), "worker");
}

TEST_F(scheduler_machine_test, an_admission_batch_is_told_to_the_supervisor_and_given_to_workers) {
  test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
  probe_snapshot snap;
  snap.snapshot_id = "admission-1";
  snap.checked_at = now;
  quota_answer = snap;
  start(4);
  ASSERT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  EXPECT_EQ(quota_batches, 1);
  ASSERT_EQ(told_supervisor.size(), 1u);
  EXPECT_TRUE(specs.front().has_admission_quota);
  // The batch is asked for after the pass is durable, and the start follows it.
  auto ask = std::find(commands.begin(), commands.end(), "run_quota_probes");
  auto tell = std::find(commands.begin(), commands.end(), "tell_supervisor");
  auto go = std::find(commands.begin(), commands.end(), "start_task");
  EXPECT_LT(ask, tell);
  EXPECT_LT(tell, go);
}

// A task blocked by an earlier run (its worker's failure budget ran out).
class blocked_task_test : public scheduler_machine_test {
protected:
  void SetUp() override {
    test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
    task_state st;
    st.work_unit_id = work_unit_now("g/01_a");
    ASSERT_FALSE(st.work_unit_id.empty());
    st.blocked = blocked_info{"failure budget exhausted", "{}"};
    st.failure_budgets["worker"] = 3;
    model.tasks["g/01_a"] = st;
  }
};

TEST_F(blocked_task_test, stays_blocked_and_ends_the_run_with_2) {
  start(4);
  EXPECT_TRUE(started.empty());
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 2) << summary();
  EXPECT_TRUE(model.tasks["g/01_a"].blocked.has_value());
  EXPECT_EQ(shown_of(run_event_kind::task_blocked).size(), 1u);
}

TEST_F(blocked_task_test, with_retry_blocked_is_cleared_durably_and_started) {
  start(4, "", true);
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  EXPECT_FALSE(model.tasks["g/01_a"].blocked.has_value());
  EXPECT_TRUE(model.tasks["g/01_a"].failure_budgets.empty());
  EXPECT_FALSE(finished.has_value());
}

TEST_F(blocked_task_test, another_block_is_not_probed) {
  start(4);
  EXPECT_TRUE(work_log_probes.empty());
}

// A task blocked because its work log could not be written (ENOSPC, a
// read-only workspace): the block lifts by itself once the log is writable.
class work_log_blocked_test : public scheduler_machine_test {
protected:
  void SetUp() override {
    test::write_minimal_task(ws, "g/01_a", "src/a.cpp");
    task_state st;
    st.work_unit_id = work_unit_now("g/01_a");
    st.blocked = blocked_info{
      "work log failure blocks the task at once (work-log-write-failed): No space left on device",
      R"({"role": "worker", "failure_class": "work-log-write-failed"})"};
    model.tasks["g/01_a"] = st;
  }
};

TEST_F(work_log_blocked_test, is_cleared_and_started_once_the_work_log_is_writable) {
  start(4);
  EXPECT_EQ(work_log_probes, (std::vector<std::vector<std::string>>{{"g/01_a"}}));
  EXPECT_EQ(started, (std::vector<std::string>{"g/01_a"}));
  EXPECT_FALSE(model.tasks["g/01_a"].blocked.has_value());
}

TEST_F(work_log_blocked_test, stays_blocked_while_the_work_log_cannot_be_written) {
  work_log_writable = false;
  start(4);
  EXPECT_EQ(work_log_probes.size(), 1u);
  EXPECT_TRUE(started.empty());
  EXPECT_TRUE(model.tasks["g/01_a"].blocked.has_value());
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(exit_code(), 2) << summary();
}

TEST(scheduler_machine, an_answer_nobody_waits_for_changes_nothing) {
  auto pol = *parse_policy(default_policy_json(), "default");
  auto zone = *load_time_zone(pol.timezone);
  scheduler_context ctx;
  ctx.pol = &pol;
  ctx.zone = &zone;
  scheduler_machine m(ctx);
  EXPECT_TRUE(m.step(1, sched_ev::state_applied{3}).empty());
  EXPECT_TRUE(m.step(1, sched_ev::scan_read{}).empty());
  EXPECT_TRUE(m.step(1, sched_ev::quota_probed{}).empty());
  EXPECT_TRUE(m.step(1, sched_ev::work_logs_archived{}).empty());
  EXPECT_EQ(m.phase(), scheduler_phase::idle);
}

} // namespace
} // namespace ad::runtime
