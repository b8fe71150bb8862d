#pragma once
// One admitted stage of one task as the scheduler hands it to its task
// actor: the task's folder, active PLAN and review, route (lane, grade),
// work unit, write set, the durable attempt counter of its stage and the
// quota snapshot of the admission batch that started it. A plain value;
// its JSON form is the message trace's, and task_spec_from_json returns
// invalid_argument naming the member at fault (it never throws).

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/status.hpp"
#include "runtime/state/model.hpp"
#include "runtime/workspace/stage.hpp"

namespace ad::runtime {

struct task_spec {
  std::string name;
  task_stage stage = task_stage::worker; // worker | selfcheck | review
  std::string task_dir;
  std::string plan;   // active PLAN, may be empty (recovery)
  std::string review; // active CODE_REVIEW, may be empty
  std::string lane;   // local | cloud
  int grade = 1;
  int64_t plan_number = 0;
  std::string work_unit_id;
  std::vector<std::string> write_paths;
  int64_t last_attempt = 0; // attempt counter of (name, plan_number, stage) in state
  // The quota snapshot of the admission batch that started this task.
  bool has_admission_quota = false;
  quota_snapshot admission_quota;
  // A restart's adoption: the stage's attempt number last_attempt runs (or
  // ran) under its keeper; the task follows it to its end instead of
  // choosing a target and launching (docs/restart.md).
  struct adoption {
    std::string locator;
    int64_t keeper_pid = 0;
    std::string keeper_start_token;
    std::string cli;   // the attempt's adapter and model, for its target
    std::string model; // when state names no decision for the stage
    std::string node;  // distributed mode: the worker node that runs it
    bool operator==(const adoption&) const = default;
  };
  bool adopting = false;
  adoption adopted;

  // The stage's name as state, prompts and events spell it.
  std::string stage_name() const { return std::string(to_string(stage)); }
  bool operator==(const task_spec&) const = default;
};

// "worker", "selfcheck" or "review"; anything else is invalid_argument.
result<task_stage> parse_run_stage(std::string_view name);

json to_json(const task_spec& spec);
result<task_spec> task_spec_from_json(const json& j);

} // namespace ad::runtime
