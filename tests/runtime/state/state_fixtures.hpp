#pragma once
// Builders shared by the state tests: a fully populated decision and state,
// and a scripted workload of change batches whose presence after a reload
// can be checked all-or-nothing through per-batch marker counters.

#include <string>
#include <vector>

#include "runtime/state/change.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime::test {

inline route_decision sample_decision(const std::string& stage, route_transition tr) {
  route_decision d;
  d.work_unit_id = "auth/02+01_api::plan-3::tag-x";
  d.stage = stage;
  d.lane = "local";
  d.grade = 4;
  d.candidates = {{"pi:qwen", true, {}}, {"codex:gpt", false, {"quota-exhausted"}}};
  d.selected_target = "pi:qwen";
  d.rule_id = "local-default";
  d.priority = 10;
  d.reason_codes = {"rule-match", "quota-ok"};
  d.evaluated_at = 1764421656123;
  d.quota = {1764421650000, {{"pi:qwen", "available"}, {"codex:gpt", "exhausted"}}};
  d.transition = tr;
  d.previous_target = tr == route_transition::initial ? "" : "codex:gpt";
  d.next_target = "pi:qwen";
  return d;
}

inline state_model sample_state() {
  state_model s;
  task_state t;
  t.work_unit_id = "auth/02+01_api::plan-3::tag-x";
  t.worker_done = true;
  t.blocked = blocked_info{"budget exhausted", "context-limit at line 3"};
  t.active_stage = "review";
  t.active_locator = "/state/runs/x/locator.json";
  t.counters = {{"selfcheck_rounds", 2}, {"no_progress", 1}};
  t.failure_budgets = {{"worker", 3}};
  t.decisions["worker"] = sample_decision("worker", route_transition::failover);
  t.route_history = {sample_decision("worker", route_transition::initial),
                     sample_decision("worker", route_transition::failover)};
  t.completing_decision = sample_decision("worker", route_transition::promotion);
  t.quota = quota_snapshot{5, {{"a", "unknown"}}};
  t.handoff = retry_handoff{"h-1", "codex:gpt", "/state/runs/y/locator.json"};
  t.intervention = intervention_context{{"file-already-exists"}, "edit, do not create",
                                        {"/w/a.cpp"}, {"/w/a.cpp"}, 77, {}};
  t.write_sets["a01"] = {std::vector<file_snapshot>{{"/w/a.cpp", false, 0, 0, ""}},
                         std::vector<file_snapshot>{{"/w/a.cpp", true, 12, 99, std::string(64, 'a')}}};
  s.tasks["auth/02+01_api"] = t;
  s.tasks["auth/01_db"].work_unit_id = "auth/01_db::plan-1::tag-y";
  s.attempt_counters[{"auth/02+01_api", 3, "worker"}] = 2;
  s.claims["auth/02+01_api"] = {claim_kind::paths, {"/w/a.cpp", "/w/b.cpp"}};
  s.claims["ops/01_x"] = {claim_kind::exclusive, {}};
  orchestration_record o;
  o.status = orchestration_status::blocked;
  o.tasks["auth/01_db"] = {orchestration_task_status::complete, "/w/agent-task/archive/2026/11/auth/01_db",
                           {"/w/agent-task/archive/2026/10/auth/01_db"}};
  o.tasks["auth/02+01_api"] = {orchestration_task_status::active, "", {}};
  s.orchestrations["auth"] = o;
  return s;
}

// Batch i (one journal entry) touches task "t<i % 4>" and sets marker
// counters "m<i>_<j>" for j < 3, plus a few other kinds of change, so every
// batch is recognisable after a reload.
inline std::vector<state_change> scripted_batch(int i) {
  std::string task = "t" + std::to_string(i % 4);
  std::vector<state_change> out;
  out.push_back(begin_work_unit{task, task + "::plan-1::tag-a"});
  for (int j = 0; j < 3; ++j)
    out.push_back(set_counter{task, "m" + std::to_string(i) + "_" + std::to_string(j), i});
  out.push_back(record_failure{task, "worker"});
  out.push_back(replace_claim{task, {claim_kind::paths, {"/w/f" + std::to_string(i)}}});
  if (i % 3 == 0)
    out.push_back(record_decision{task, sample_decision("worker", route_transition::initial)});
  if (i % 5 == 0)
    out.push_back(set_retry_handoff{task, {"h" + std::to_string(i), "codex:gpt", "/l"}});
  return out;
}

// How many of batch i's markers the state holds (0 or 3 when all-or-nothing).
inline int markers_present(const state_model& s, int i) {
  auto it = s.tasks.find("t" + std::to_string(i % 4));
  if (it == s.tasks.end())
    return 0;
  int n = 0;
  for (int j = 0; j < 3; ++j)
    n += it->second.counters.contains("m" + std::to_string(i) + "_" + std::to_string(j));
  return n;
}

} // namespace ad::runtime::test
