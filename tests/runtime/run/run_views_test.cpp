#include "runtime/run/run_views.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <unistd.h>

#include "runtime/agents/attempt_locator.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/proc_stat.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/run/run_pass.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

using test::temp_dir;

void write_view_task(const temp_dir& ws, const std::string& task, const std::string& path) {
  test::write_minimal_task(ws, task, path);
}

policy views_policy() { return *parse_policy(default_policy_json(), "default"); }

TEST(run_views, fresh_and_changed_work_units_begin_anew) {
  temp_dir ws;
  write_view_task(ws, "g/01_a", "src/a.cpp");
  auto scan = scan_workspace(ws.path());
  ASSERT_TRUE(scan.is_ok());
  ASSERT_EQ(scan->tasks.size(), 1u);
  state_model state;
  auto changes = work_unit_changes(state, scan->tasks);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(std::get<begin_work_unit>(changes[0]).work_unit_id, "g/01_a::plan-1::tag-t");
  EXPECT_EQ(current_task_state(state, scan->tasks[0]), nullptr);

  state.tasks["g/01_a"].work_unit_id = "g/01_a::plan-1::tag-t";
  state.tasks["g/01_a"].worker_done = true;
  EXPECT_TRUE(work_unit_changes(state, scan->tasks).empty());
  ASSERT_NE(current_task_state(state, scan->tasks[0]), nullptr);

  state.tasks["g/01_a"].work_unit_id = "g/01_a::plan-0::tag-old";
  EXPECT_EQ(work_unit_changes(state, scan->tasks).size(), 1u);
  EXPECT_EQ(current_task_state(state, scan->tasks[0]), nullptr);
}

TEST(run_views, progress_maps_completing_decision_to_execution_class) {
  auto pol = views_policy();
  task_state st;
  st.worker_done = true;
  route_decision d;
  d.stage = "worker";
  d.selected_target = "pi-laguna-s";
  st.completing_decision = d;
  EXPECT_EQ(progress_from_state(&st, pol).completing, completing_decision::local_model);
  st.completing_decision->modify().selected_target = "codex-terra";
  EXPECT_EQ(progress_from_state(&st, pol).completing, completing_decision::cloud_model);
  st.completing_decision->modify().selected_target = "gone";
  EXPECT_EQ(progress_from_state(&st, pol).completing, completing_decision::invalid);
  st.blocked = blocked_info{"budget spent", ""};
  EXPECT_EQ(progress_from_state(&st, pol).blocked_reason, "budget spent");
}

TEST(run_pass, admits_one_of_two_overlapping_tasks_and_persists_its_claim_first) {
  temp_dir ws;
  write_view_task(ws, "g/01_a", "src/shared.cpp");
  write_view_task(ws, "g/02_b", "src/shared.cpp");
  auto scan = scan_workspace(ws.path());
  ASSERT_TRUE(scan.is_ok());
  auto pol = views_policy();
  state_model state;
  pass_input in;
  in.scan = &*scan;
  in.state = &state;
  in.pol = &pol;
  auto plan = plan_pass(in);
  ASSERT_EQ(plan.admission.admitted.size(), 1u);
  EXPECT_EQ(plan.admission.admitted[0], "g/01_a");
  int claims = 0, sightings = 0;
  for (const auto& c : plan.changes) {
    claims += std::holds_alternative<replace_claim>(c);
    sightings += std::holds_alternative<observe_orchestration>(c);
  }
  EXPECT_EQ(claims, 1);
  EXPECT_EQ(sightings, 1);
  bool conflict = false;
  for (const auto& e : plan.admission.entries)
    if (e.task == "g/02_b")
      conflict = e.reason.find("claim conflict with g/01_a") != std::string::npos;
  EXPECT_TRUE(conflict);

  // A live task elsewhere keeps its claim and is never admitted.
  in.live["g/01_a"] = {live_where::elsewhere, "pid 1 alive"};
  auto followed = plan_pass(in);
  EXPECT_TRUE(followed.admission.admitted.empty());
  auto obs = observe_run_end(followed, false, 0, {});
  EXPECT_EQ(obs.external_live.size(), 1u);
  EXPECT_EQ(compute_run_exit(obs).code, 3);
}

TEST(active_probe, an_active_stage_without_a_record_is_stale_and_a_dead_agent_too) {
  temp_dir root;
  run_location where{root.path(), "abcd", root.path() / "runs"};
  state_model state;
  task_state st;
  st.active_stage = "worker";
  state.tasks["g/01_a"] = st;
  system_clock clk;
  auto probe = probe_active_stage("g/01_a", st, state, where, clk);
  EXPECT_EQ(probe.kind, active_probe_kind::stale);
  auto review = review_active_stages(state, where, clk, {});
  EXPECT_TRUE(review.live.empty());
  ASSERT_EQ(review.changes.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<clear_active_stage>(review.changes[0]));
}

TEST(active_probe, a_stage_whose_locator_says_succeeded_is_finished_from_it_not_run_again) {
  temp_dir root;
  auto ws = std::filesystem::canonical(root.path());
  run_location where{ws, "abcd", ws / "runs"};
  auto pol = views_policy();
  state_model state;
  task_state st;
  st.work_unit_id = "g/01_a::plan-1::tag-t";
  st.active_stage = "worker";
  route_decision d;
  d.work_unit_id = st.work_unit_id;
  d.stage = "worker";
  d.selected_target = "codex-terra";
  st.decisions["worker"] = d;
  state.tasks["g/01_a"] = st;
  state.attempt_counters[attempt_key{"g/01_a", 1, "worker"}] = 1;
  attempt_locator loc;
  loc.identity = make_attempt_identity("g/01_a", 1, "worker", 1);
  loc.task = "g/01_a";
  loc.plan_number = 1;
  loc.role = "worker";
  loc.attempt = 1;
  loc.workspace = ws.string();
  loc.workspace_id = "abcd";
  loc.cli = "codex";
  loc.model = "gpt-5.6-terra";
  loc.process_marker = "marker-of-an-ended-agent";
  loc.status = attempt_status::succeeded;
  loc.exit_code = 0;
  auto write = [&] {
    root.write("runs/20261129T100000Z__" + loc.identity + "/locator.json",
               dump_json(locator_to_json(loc)));
  };
  write();
  system_clock clk;
  auto count = [](const active_review& r, auto pick) {
    int n = 0;
    for (const auto& c : r.changes)
      n += std::holds_alternative<decltype(pick)>(c) ? 1 : 0;
    return n;
  };

  // Without a policy the stage is only cleared (the worker would run again).
  auto plain = review_active_stages(state, where, clk, {});
  EXPECT_EQ(plain.changes.size(), 1u);
  EXPECT_EQ(plain.cleared.size(), 1u);

  auto finished = review_active_stages(state, where, clk, {}, &pol);
  EXPECT_TRUE(finished.cleared.empty());
  ASSERT_EQ(finished.finished.size(), 1u);
  EXPECT_EQ(count(finished, set_task_flag{}), 1);
  EXPECT_EQ(count(finished, set_completing_decision{}), 1);
  EXPECT_EQ(count(finished, clear_active_stage{}), 1);
  EXPECT_EQ(count(finished, set_blocked{}), 0);

  // The same identity check as a success seen live: another model blocks.
  loc.model = "another-model";
  write();
  auto mismatch = review_active_stages(state, where, clk, {}, &pol);
  EXPECT_EQ(count(mismatch, set_blocked{}), 1);
  EXPECT_EQ(count(mismatch, set_task_flag{}), 0);

  // A failed attempt, or a locator of another workspace, only clears.
  loc.model = "gpt-5.6-terra";
  loc.status = attempt_status::failed;
  write();
  EXPECT_EQ(review_active_stages(state, where, clk, {}, &pol).cleared.size(), 1u);
  loc.status = attempt_status::succeeded;
  loc.workspace_id = "ffff";
  write();
  auto foreign = review_active_stages(state, where, clk, {}, &pol);
  EXPECT_EQ(foreign.cleared.size(), 1u);
  EXPECT_EQ(count(foreign, set_task_flag{}), 0);
}

// A running attempt under a keeper: the keeper alive (here: this test
// process, by pid and start token) or its exit record written makes the
// attempt kept, adopted by the restart; a keeper gone without a record
// leaves the attempt to the agent rule (no agent: stale, the stage clears).
TEST(active_probe, a_running_attempt_whose_keeper_lives_or_recorded_the_end_is_adopted) {
  temp_dir root;
  auto ws = std::filesystem::canonical(root.path());
  run_location where{ws, "abcd", ws / "runs"};
  state_model state;
  task_state st;
  st.active_stage = "review";
  state.tasks["g/01_a"] = st;
  state.attempt_counters[attempt_key{"g/01_a", 1, "review"}] = 2;
  attempt_locator loc;
  loc.identity = make_attempt_identity("g/01_a", 1, "review", 2);
  loc.task = "g/01_a";
  loc.plan_number = 1;
  loc.role = "review";
  loc.attempt = 2;
  loc.workspace = ws.string();
  loc.workspace_id = "abcd";
  loc.cli = "codex";
  loc.model = "gpt-5.6-terra";
  loc.process_marker = "marker-of-no-process-at-all";
  loc.status = attempt_status::running;
  auto token = process_start_token(::getpid());
  ASSERT_TRUE(token.is_ok());
  loc.keeper_pid = ::getpid();
  loc.keeper_start_token = *token;
  auto dir = "runs/20261129T100000Z__" + loc.identity;
  auto write = [&] { root.write(dir + "/locator.json", dump_json(locator_to_json(loc))); };
  write();
  system_clock clk;

  auto probe = probe_active_stage("g/01_a", st, state, where, clk);
  EXPECT_EQ(probe.kind, active_probe_kind::kept) << probe.reason;
  EXPECT_EQ(probe.kept.identity, loc.identity);
  EXPECT_EQ(probe.kept.attempt, 2);
  EXPECT_EQ(probe.kept.cli, "codex");
  EXPECT_EQ(probe.kept.keeper_pid, ::getpid());
  EXPECT_FALSE(probe.kept.ended);
  auto review = review_active_stages(state, where, clk, {});
  ASSERT_EQ(review.adopt.size(), 1u);
  EXPECT_EQ(review.adopt[0].task, "g/01_a");
  EXPECT_EQ(review.adopt[0].stage, "review");
  EXPECT_TRUE(review.changes.empty()) << "an adopted stage is not cleared";
  EXPECT_TRUE(review.live.empty());

  // A keeper that is gone (another start token) and wrote nothing: the
  // agent rule decides, and no agent carries the marker.
  loc.keeper_start_token = "1";
  write();
  EXPECT_EQ(probe_active_stage("g/01_a", st, state, where, clk).kind, active_probe_kind::stale);

  // The same keeper with its exit record: kept, ended.
  root.write(dir + "/exit.json",
             R"({"format": "agent-dispatch-keeper-exit", "version": 1, "end": "exited",
                 "exit_code": 0, "signal": 0, "reason": "",
                 "termination": {"initiator": "none", "signal": null},
                 "stream": {"lines": 1, "bytes": 10, "cut_lines": 0, "cut_bytes": 0,
                            "dropped_line_bytes": 0, "write_failures": 0},
                 "ended_at_ms": 1796000000000})");
  auto ended = probe_active_stage("g/01_a", st, state, where, clk);
  EXPECT_EQ(ended.kind, active_probe_kind::kept) << ended.reason;
  EXPECT_TRUE(ended.kept.ended);

  // On a worker node: its keeper is that host's to judge (this host sees no
  // such process), so the attempt is adopted through the node.
  std::filesystem::remove(root.path() / dir / "exit.json");
  loc.node = "n2";
  loc.keeper_pid = 999'999'999;
  write();
  auto remote = probe_active_stage("g/01_a", st, state, where, clk);
  EXPECT_EQ(remote.kind, active_probe_kind::kept) << remote.reason;
  EXPECT_EQ(remote.kept.node, "n2");
  EXPECT_FALSE(remote.kept.ended);
  EXPECT_NE(remote.reason.find("node n2"), std::string::npos) << remote.reason;
}

TEST(active_probe, finds_the_newest_locator_and_removes_only_the_tasks_logs) {
  temp_dir root;
  auto runs = root.path() / "runs";
  auto id = make_attempt_identity("g/01_a", 1, "worker", 2);
  root.write("runs/20261129T100000Z__" + id + "/locator.json", "{}");
  root.write("runs/20261129T110000Z__" + id + "/locator.json", "{}");
  root.write("runs/20261129T110000Z__" + make_attempt_identity("g/01_ab", 1, "worker", 1) +
               "/locator.json", "{}");
  auto found = find_attempt_locator(runs, "g/01_a", 1, "worker", 2);
  EXPECT_EQ(found.parent_path().filename().string(), "20261129T110000Z__" + id);
  EXPECT_TRUE(find_attempt_locator(runs, "g/01_a", 1, "worker", 3).empty());
  EXPECT_EQ(remove_attempt_logs(runs, "g/01_a"), 2);
  EXPECT_EQ(remove_attempt_logs(runs, "g/01_ab"), 1);
}

} // namespace
} // namespace ad::runtime
