#include <gtest/gtest.h>

#include "runtime/policy/policy.hpp"
#include "runtime/records/decision_records.hpp"
#include "runtime/replay/pure_replay.hpp"
#include "runtime/run/active_probe.hpp"

namespace ad::runtime {
namespace {

run_observation sample_observation() {
  run_observation obs;
  obs.terminal_error = "";
  obs.external_live = {"g/01_a: pid 7 alive"};
  obs.observed = 3;
  obs.complete = 2;
  obs.not_complete = {"g/02_b: blocked"};
  return obs;
}

TEST(decision_records, run_observation_round_trips) {
  auto obs = sample_observation();
  auto back = run_observation_from_json(run_end_body(obs));
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_EQ(back->external_live, obs.external_live);
  EXPECT_EQ(back->observed, 3);
  EXPECT_EQ(back->complete, 2);
  EXPECT_EQ(back->not_complete, obs.not_complete);
  auto bad = run_observation_from_json(json{{"observed", "three"}});
  ASSERT_FALSE(bad.is_ok());
  EXPECT_TRUE(bad.error().is_invalid_argument());
}

// "observed" read as an int from 1e300 was undefined behaviour.
TEST(decision_records, a_run_observation_count_with_an_exponent_is_an_error) {
  auto body = run_end_body(sample_observation());
  body["observed"] = 1e300;
  auto bad = run_observation_from_json(body);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.error().message(), "run.end: \"observed\" holds 1e+300 where an integer belongs");
}

TEST(decision_records, json_text_becomes_a_value_or_stays_text) {
  EXPECT_EQ(json_or_text(R"({"a":1})"), (json{{"a", 1}}));
  EXPECT_EQ(json_or_text("{broken"), json("{broken"));
}

replay_handlers handlers_for_default_policy() {
  auto pol = parse_policy_text("{}", "test");
  EXPECT_TRUE(pol.is_ok());
  replay_handlers h;
  add_pure_replay_handlers(h, pol->value, time_zone::fixed("UTC", 0));
  return h;
}

TEST(pure_replay, run_end_decides_the_exit_code) {
  auto h = handlers_for_default_policy();
  auto out = h.at("run.end").fn(run_end_body(sample_observation()));
  ASSERT_TRUE(out.is_ok()) << out.error().message();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].kind, "run.exit");
  EXPECT_EQ((*out)[0].body, run_exit_body(compute_run_exit(sample_observation())));
  EXPECT_EQ((*out)[0].body["code"], 3); // an external live attempt: waiting outside
}

TEST(pure_replay, malformed_edges_are_errors_not_exceptions) {
  auto h = handlers_for_default_policy();
  EXPECT_FALSE(h.at("supervisor.failure").fn(json{{"now", 1}}).is_ok());
  EXPECT_FALSE(h.at("supervisor.failure")
                 .fn(json{{"request", "not json"}, {"task_state", json::object()}, {"now", 1}})
                 .is_ok());
  EXPECT_FALSE(h.at("supervisor.quota_batch").fn(json::object()).is_ok());
  EXPECT_FALSE(h.at("run.end").fn(json::array()).is_ok());
  EXPECT_FALSE(h.at("scheduler.admission").fn(json{{"tasks", json::object()}}).is_ok());
  EXPECT_FALSE(h.at("scheduler.reconcile").fn(json{{"scope", "g"}}).is_ok());
}

reconcile_input vanished_task(std::vector<std::string> archives) {
  reconcile_input in;
  in.scope = "g";
  orchestration_task t;
  t.archive_baseline = {"/w/agent-task/archive/2026/10/g/01_a"};
  in.record.tasks.emplace("g/01_a", t);
  in.live = {"g/02_b"};
  if (!archives.empty())
    in.archives["g/01_a"] = std::move(archives);
  return in;
}

TEST(pure_replay, reconcile_edge_decides_like_reconcile_orchestration) {
  auto h = handlers_for_default_policy();
  for (const auto& archives :
       {std::vector<std::string>{"/w/agent-task/archive/2026/11/g/01_a"},
        std::vector<std::string>{"/w/agent-task/archive/2026/11/g/01_a",
                                 "/w/agent-task/archive/2026/11/g/01_a-2"},
        std::vector<std::string>{}}) {
    auto in = vanished_task(archives);
    auto body = reconcile_input_body(in);
    auto back = reconcile_input_from_json(body);
    ASSERT_TRUE(back.is_ok()) << back.error().message();
    EXPECT_EQ(back->record, in.record);
    EXPECT_EQ(back->live, in.live);
    EXPECT_EQ(back->archives, in.archives);
    auto out = h.at("scheduler.reconcile").fn(body);
    ASSERT_TRUE(out.is_ok()) << out.error().message();
    ASSERT_EQ(out->size(), 1u);
    EXPECT_EQ((*out)[0].kind, "scheduler.reconciled");
    auto expected = reconcile_orchestration(in.scope, in.record, in.live, in.archives);
    EXPECT_EQ((*out)[0].body, reconcile_outcome_body(expected));
    // One new archive completes the task; two or none leave it an error.
    EXPECT_EQ((*out)[0].body["completed"].contains("g/01_a"), archives.size() == 1);
  }
}

TEST(pure_replay, reconcile_reader_names_the_bad_member) {
  auto body = reconcile_input_body(vanished_task({}));
  body["live"] = "g/02_b";
  auto back = reconcile_input_from_json(body);
  ASSERT_FALSE(back.is_ok());
  EXPECT_NE(back.error().message().find("\"live\""), std::string::npos) << back.error().message();
  body = reconcile_input_body(vanished_task({}));
  body["record"] = json::array();
  back = reconcile_input_from_json(body);
  ASSERT_FALSE(back.is_ok());
  EXPECT_NE(back.error().message().find("\"record\""), std::string::npos) << back.error().message();
}

std::vector<active_stage_reading> sample_readings() {
  active_stage_reading live;
  live.task = "g/01_a";
  live.state.active_stage = "worker";
  live.probe = {active_probe_kind::live, "pid 7 alive", "/s/runs/a/locator.json", "running", true, {}};
  active_stage_reading gone;
  gone.task = "g/02_b";
  gone.state.active_stage = "review";
  gone.probe = {active_probe_kind::stale, "agent gone", "/s/runs/b/locator.json", "running", true, {}};
  active_stage_reading done;
  done.task = "g/03_c";
  done.state.active_stage = "selfcheck";
  done.probe = {active_probe_kind::stale, "locator status is succeeded", "/s/runs/c/locator.json",
                "succeeded", true, {}};
  done.locator_read = true;
  done.locator_role = "selfcheck";
  done.checklist_read = true;
  done.checklist = {checklist_state::complete, 3, 0};
  return {live, gone, done};
}

TEST(pure_replay, liveness_edge_decides_like_decide_active_stages) {
  auto pol = parse_policy_text("{}", "test");
  ASSERT_TRUE(pol.is_ok());
  auto readings = sample_readings();
  auto body = active_stage_readings_body(readings);
  auto back = active_stage_readings_from_json(body);
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_EQ(active_stage_readings_body(*back), body);
  auto expected = decide_active_stages(readings, &pol->value);
  EXPECT_EQ(expected.live.size(), 1u);
  EXPECT_EQ(expected.cleared.size(), 1u);
  EXPECT_EQ(expected.finished.size(), 1u); // the self-check finished from its locator
  auto out = handlers_for_default_policy().at("scheduler.liveness").fn(body);
  ASSERT_TRUE(out.is_ok()) << out.error().message();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].kind, "scheduler.active_stages");
  EXPECT_EQ((*out)[0].body, active_review_body(expected));
}

TEST(pure_replay, liveness_reader_rejects_an_unknown_probe_kind) {
  auto body = active_stage_readings_body(sample_readings());
  body["readings"][0]["probe"]["kind"] = "maybe";
  auto back = active_stage_readings_from_json(body);
  ASSERT_FALSE(back.is_ok());
  EXPECT_NE(back.error().message().find("\"kind\""), std::string::npos) << back.error().message();
  body = active_stage_readings_body(sample_readings());
  body["readings"][2]["checklist"]["state"] = 9;
  EXPECT_FALSE(active_stage_readings_from_json(body).is_ok());
}

TEST(pure_replay, sightings_decide_new_work_units_then_first_sightings_by_scope) {
  std::vector<task_sighting> seen(3);
  seen[0] = {"g/01_a", "g/01_a::plan-2::x", true, "g/01_a::plan-1::x", true, {}};
  seen[1] = {"g/02_b", "g/02_b::plan-1::y", true, "g/02_b::plan-1::y", false,
             {"/w/agent-task/archive/2026/10/g/02_b"}};
  seen[2] = {"h/01_c", "h/01_c::recovery", false, "", false, {}};
  auto changes = sighting_changes(seen);
  auto body = changes_body(changes);
  ASSERT_EQ(body.size(), 4u) << body.dump();
  EXPECT_EQ(body[0]["op"], "begin_work_unit");
  EXPECT_EQ(body[0]["task"], "g/01_a");
  EXPECT_EQ(body[1]["op"], "begin_work_unit"); // unknown to state
  EXPECT_EQ(body[1]["task"], "h/01_c");
  EXPECT_EQ(body[2]["op"], "observe_orchestration");
  EXPECT_EQ(body[2]["scope"], "g");
  EXPECT_EQ(body[3]["scope"], "h");

  auto edge = sightings_body(seen);
  auto back = sightings_from_json(edge);
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_EQ(sightings_body(*back), edge);
  EXPECT_TRUE(edge["tasks"][2]["state_work_unit"].is_null());
  auto out = handlers_for_default_policy().at("scheduler.sightings").fn(edge);
  ASSERT_TRUE(out.is_ok()) << out.error().message();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].body["changes"], body);
  edge["tasks"][0].erase("state_work_unit");
  EXPECT_FALSE(sightings_from_json(edge).is_ok());
}

TEST(pure_replay, a_group_closes_when_all_its_tasks_are_complete_and_nothing_runs) {
  orchestration_record record;
  orchestration_task done;
  done.status = orchestration_task_status::complete;
  record.tasks = {{"g/01_a", done}, {"g/02_b", done}};
  auto g = read_group("g", record, false);
  EXPECT_EQ(g.complete, 2u);
  EXPECT_EQ(g.active, 0u);
  g.archived = {true, true, false, ""};
  auto out = decide_group_close(g);
  EXPECT_TRUE(out.close);
  ASSERT_EQ(out.changes.size(), 1u);
  EXPECT_EQ(changes_body(out.changes)[0]["op"], "set_orchestration_status");
  EXPECT_TRUE(out.error.empty());
  auto busy = g;
  busy.busy = true;
  EXPECT_FALSE(decide_group_close(busy).close);
  auto refused = g;
  refused.archived = {true, false, false, "merge conflict"};
  EXPECT_TRUE(decide_group_close(refused).changes.empty());
  EXPECT_EQ(decide_group_close(refused).error, "work-log[g]=merge conflict");
  auto no_log = g;
  no_log.archived = {true, false, true, "no work log"};
  EXPECT_EQ(decide_group_close(no_log).changes.size(), 1u);
  record.tasks["g/03_c"] = orchestration_task{};
  EXPECT_FALSE(group_closes(read_group("g", record, false))); // one still active
  EXPECT_FALSE(group_closes(read_group("g", orchestration_record{}, false))); // none observed

  auto body = group_reading_body(refused);
  auto back = group_reading_from_json(body);
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_EQ(group_reading_body(*back), body);
  auto replayed = handlers_for_default_policy().at("scheduler.group").fn(body);
  ASSERT_TRUE(replayed.is_ok()) << replayed.error().message();
  EXPECT_EQ((*replayed)[0].body, group_close_body(decide_group_close(refused)));
  body["archive"].erase("ok");
  EXPECT_FALSE(group_reading_from_json(body).is_ok());
  body = group_reading_body(refused);
  body["status"] = "paused";
  EXPECT_FALSE(group_reading_from_json(body).is_ok());
}

TEST(pure_replay, retry_blocked_clears_only_blocked_tasks_in_name_order) {
  retry_blocked_input in;
  in.now = 1'000;
  task_state blocked;
  blocked.blocked = blocked_info{"worker recovery failure limit exhausted: 10/10", "{}"};
  blocked.counters["retry:worker:generic"] = 9;
  in.tasks = {{"g/02_b", blocked}, {"g/01_a", task_state{}}, {"g/03_c", blocked}};
  auto changes = changes_body(retry_blocked_changes(in.tasks, in.now));
  std::vector<std::string> cleared;
  for (const auto& c : changes)
    if (c["op"] == "clear_blocked")
      cleared.push_back(c["task"].get<std::string>());
  EXPECT_EQ(cleared, (std::vector<std::string>{"g/02_b", "g/03_c"}));
  for (const auto& c : changes)
    EXPECT_NE(c["task"], "g/01_a") << c.dump();

  auto body = retry_blocked_body(in);
  auto back = retry_blocked_input_from_json(body);
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_EQ(retry_blocked_body(*back), body);
  auto replayed = handlers_for_default_policy().at("scheduler.retry_blocked").fn(body);
  ASSERT_TRUE(replayed.is_ok()) << replayed.error().message();
  ASSERT_EQ(replayed->size(), 1u);
  EXPECT_EQ((*replayed)[0].kind, "scheduler.retry_cleared");
  EXPECT_EQ((*replayed)[0].body, (json{{"changes", changes}}));

  auto bad = body;
  bad.erase("now");
  auto err = retry_blocked_input_from_json(bad);
  ASSERT_FALSE(err.is_ok());
  EXPECT_NE(err.error().message().find("now"), std::string::npos);
  bad = body;
  bad["tasks"] = json::array();
  EXPECT_FALSE(retry_blocked_input_from_json(bad).is_ok());
  bad = body;
  bad["tasks"]["g/02_b"]["counters"] = "none";
  err = retry_blocked_input_from_json(bad);
  ASSERT_FALSE(err.is_ok());
  EXPECT_NE(err.error().message().find("g/02_b"), std::string::npos);
}

} // namespace
} // namespace ad::runtime
