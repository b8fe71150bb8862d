#include "runtime/run/exit_code.hpp"

#include <algorithm>

namespace ad::runtime {

run_exit compute_run_exit(const run_observation& obs) {
  run_exit out;
  if (obs.interrupted) {
    out.code = exit_interrupted;
    out.kind = run_exit_kind::interrupted;
    out.summary = "interrupted: admissions stopped, running agents cancelled";
    return out;
  }
  if (!obs.terminal_error.empty()) {
    out.code = exit_blocked;
    out.kind = run_exit_kind::blocked;
    out.summary = obs.terminal_error;
    return out;
  }
  if (!obs.other_dispatcher.empty()) {
    out.code = exit_waiting_outside;
    out.kind = run_exit_kind::waiting_outside;
    out.summary = "another dispatcher owns this workspace: " + obs.other_dispatcher;
    return out;
  }
  if (!obs.external_live.empty() || !obs.reconciliation_pending.empty() ||
      !obs.capacity_held_externally.empty()) {
    out.code = exit_waiting_outside;
    out.kind = run_exit_kind::waiting_outside;
    std::string what;
    auto add = [&](const char* label, const std::vector<std::string>& items,
                   const char* prefix) {
      if (items.empty())
        return;
      if (!what.empty())
        what += "; ";
      what += std::to_string(items.size());
      what += ' ';
      what += label;
      for (const auto& i : items)
        out.details.push_back(std::string(prefix) + i);
    };
    add("live attempt(s) outside this process", obs.external_live, "running elsewhere: ");
    add("reconciliation(s) pending", obs.reconciliation_pending, "reconciliation: ");
    add("task(s) waiting for capacity held by other dispatchers",
        obs.capacity_held_externally, "capacity held outside: ");
    out.summary = "waiting on work outside this process: " + what;
    return out;
  }
  if (obs.task_group_requested && obs.observed == 0 && obs.complete == 0) {
    out.code = exit_blocked;
    out.kind = run_exit_kind::blocked;
    out.summary = "the task group holds no active task and no verified completion";
    return out;
  }
  if (!obs.not_complete.empty() || obs.complete < obs.observed) {
    out.code = exit_blocked;
    out.kind = run_exit_kind::blocked;
    auto open = std::max<std::size_t>(obs.not_complete.size(),
                                      static_cast<std::size_t>(std::max(0, obs.observed - obs.complete)));
    out.summary = "nothing runnable: " + std::to_string(open) + " task(s) not complete";
    out.details = obs.not_complete;
    return out;
  }
  out.code = exit_complete;
  out.kind = run_exit_kind::complete;
  out.summary = "all " + std::to_string(obs.complete) + " observed task(s) complete";
  return out;
}

} // namespace ad::runtime

