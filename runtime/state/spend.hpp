#pragma once
// What the run has spent, summed from the attempts' records in the state
// (state_model::spent): one record per attempt identity, so nothing counts
// twice after an adoption or a replay. The run's total is the whole
// state's: every task, across restarts. Pure functions, never throw.

#include <map>
#include <string>
#include <string_view>

#include "runtime/core/token_usage.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

struct spend_totals {
  token_usage run;
  std::map<std::string, token_usage> by_task;
  std::map<std::string, token_usage> by_target; // "" = attempts without a known target
};

spend_totals spend_totals_of(const state_model& state);

// One task's sum: all its attempts, every stage and plan.
token_usage task_spend(const state_model& state, std::string_view task);

} // namespace ad::runtime
