#include "runtime/state/change.hpp"

#include <algorithm>

namespace ad::runtime {

namespace {

template <class... Fs>
struct overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
overloaded(Fs...) -> overloaded<Fs...>;

status unknown_task(const std::string& task) {
  return status::not_found("no state for task \"" + task
                           + "\" (record begin_work_unit first)");
}

// Runs f on the task's state when it exists.
template <class F>
status on_task(state_model& state, const std::string& task, F&& f) {
  auto it = state.tasks.find(task);
  if (it == state.tasks.end())
    return unknown_task(task);
  f(it->second);
  return status::ok();
}

void erase_counters_of(state_model& state, const std::string& task) {
  std::erase_if(state.attempt_counters, [&](const auto& kv) { return kv.first.task == task; });
}

} // namespace

status apply_change(state_model& state, const state_change& change) {
  return std::visit(
    overloaded{
      [&](const begin_work_unit& c) -> status {
        if (c.task.empty() || c.work_unit_id.empty())
          return status::invalid_argument("begin_work_unit needs a task and a work unit id");
        auto& t = state.tasks[c.task];
        if (t.work_unit_id != c.work_unit_id) {
          t = task_state{};
          t.work_unit_id = c.work_unit_id;
        }
        return status::ok();
      },
      [&](const set_task_flag& c) {
        return on_task(state, c.task, [&](task_state& t) {
          (c.flag == task_flag::worker_done ? t.worker_done : t.selfcheck_done) = c.value;
        });
      },
      [&](const set_blocked& c) {
        return on_task(state, c.task, [&](task_state& t) { t.blocked = c.info; });
      },
      [&](const clear_blocked& c) {
        return on_task(state, c.task, [&](task_state& t) { t.blocked.reset(); });
      },
      [&](const set_active_stage& c) {
        return on_task(state, c.task, [&](task_state& t) {
          t.active_stage = c.stage;
          t.active_locator = c.locator;
        });
      },
      [&](const clear_active_stage& c) {
        return on_task(state, c.task, [&](task_state& t) {
          t.active_stage.clear();
          t.active_locator.clear();
        });
      },
      [&](const set_counter& c) {
        return on_task(state, c.task, [&](task_state& t) { t.counters[c.name] = c.value; });
      },
      [&](const record_failure& c) {
        return on_task(state, c.task, [&](task_state& t) { ++t.failure_budgets[c.stage]; });
      },
      [&](const reset_failures& c) {
        return on_task(state, c.task, [&](task_state& t) {
          if (c.stage.empty())
            t.failure_budgets.clear();
          else
            t.failure_budgets.erase(c.stage);
        });
      },
      [&](const record_decision& c) {
        return on_task(state, c.task, [&](task_state& t) {
          t.decisions[c.decision->stage] = c.decision;
          t.route_history.push_back(c.decision);
        });
      },
      [&](const set_completing_decision& c) {
        return on_task(state, c.task, [&](task_state& t) { t.completing_decision = c.decision; });
      },
      [&](const set_quota_snapshot& c) {
        return on_task(state, c.task, [&](task_state& t) { t.quota = c.quota; });
      },
      [&](const set_retry_handoff& c) {
        return on_task(state, c.task, [&](task_state& t) { t.handoff = c.handoff; });
      },
      [&](const clear_retry_handoff& c) {
        return on_task(state, c.task, [&](task_state& t) { t.handoff.reset(); });
      },
      [&](const record_attempt_started& c) -> status {
        auto it = state.tasks.find(c.task);
        if (it == state.tasks.end())
          return unknown_task(c.task);
        auto& t = it->second;
        if (!c.consume_handoff_id.empty() && (!t.handoff || t.handoff->id != c.consume_handoff_id))
          return status::conflict("task \"" + c.task + "\" has no pending retry handoff \""
                                  + c.consume_handoff_id + "\" (pending: \""
                                  + (t.handoff ? t.handoff->id : std::string()) + "\")");
        auto& counter = state.attempt_counters[attempt_key{c.task, c.plan, c.role}];
        counter = std::max(counter, c.attempt);
        t.active_stage = c.stage;
        t.active_locator = c.locator;
        if (!c.consume_handoff_id.empty())
          t.handoff.reset();
        return status::ok();
      },
      [&](const set_intervention& c) {
        return on_task(state, c.task, [&](task_state& t) { t.intervention = c.context; });
      },
      [&](const clear_intervention& c) {
        return on_task(state, c.task, [&](task_state& t) { t.intervention.reset(); });
      },
      [&](const record_write_set& c) {
        return on_task(state, c.task, [&](task_state& t) {
          auto& snap = t.write_sets[c.attempt_id];
          (c.phase == snapshot_phase::before ? snap.before : snap.after) = c.files;
        });
      },
      [&](const remove_task& c) -> status {
        if (state.tasks.erase(c.task) == 0)
          return unknown_task(c.task);
        erase_counters_of(state, c.task);
        return status::ok();
      },
      [&](const set_attempt_counter& c) -> status {
        state.attempt_counters[c.key] = c.value;
        return status::ok();
      },
      [&](const replace_claim& c) -> status {
        if (c.owner.empty())
          return status::invalid_argument("replace_claim needs an owner");
        state.claims[c.owner] = c.claim;
        return status::ok();
      },
      [&](const release_claim& c) -> status {
        state.claims.erase(c.owner);
        return status::ok();
      },
      [&](const observe_orchestration& c) -> status {
        auto& rec = state.orchestrations[c.scope];
        if (rec.status == orchestration_status::complete)
          rec = orchestration_record{};
        rec.status = orchestration_status::running;
        for (const auto& obs : c.tasks)
          if (!rec.tasks.contains(obs.task))
            rec.tasks[obs.task] = orchestration_task{orchestration_task_status::active, {},
                                                     obs.archive_baseline};
        return status::ok();
      },
      [&](const set_orchestration_status& c) -> status {
        auto it = state.orchestrations.find(c.scope);
        if (it == state.orchestrations.end())
          return status::not_found("no orchestration record for scope \"" + c.scope + "\"");
        it->second.status = c.status;
        return status::ok();
      },
      [&](const complete_orchestration_task& c) -> status {
        auto it = state.orchestrations.find(c.scope);
        if (it == state.orchestrations.end())
          return status::not_found("no orchestration record for scope \"" + c.scope + "\"");
        auto& rec = it->second.tasks[c.task];
        rec.status = orchestration_task_status::complete;
        rec.archive = c.archive;
        // Routing is over: the task's current decision per stage, which only
        // routing an attempt reads and which repeats the latest route_history
        // entry of its stage, goes (finished tasks are most of a long run's
        // state). The rest stays (route history, completing decision, write
        // sets, counters), so a task folder that comes back goes on from
        // where the state says it was.
        if (auto task = state.tasks.find(c.task); task != state.tasks.end())
          task->second.decisions.clear();
        return status::ok();
      },
      [&](const record_attempt_usage& c) -> status {
        if (c.attempt_id.empty())
          return status::invalid_argument("record_attempt_usage needs an attempt id");
        state.spent[c.attempt_id] = attempt_spend{c.task, c.target, c.usage};
        return status::ok();
      },
      [&](const record_claim_violation& c) -> status {
        if (c.path.empty())
          return status::invalid_argument("record_claim_violation needs a path");
        if (c.attribution != "fanotify" && c.attribution != "elimination"
            && c.attribution != "candidates")
          return status::invalid_argument("record_claim_violation: unknown attribution \""
                                          + c.attribution + "\"");
        auto& list = state.claim_violations;
        bool known = std::any_of(list.begin(), list.end(), [&](const claim_violation_record& r) {
          return r.task == c.task && r.attempt == c.attempt && r.path == c.path
                 && r.candidates == c.candidates;
        });
        if (known)
          return status::ok();
        list.push_back(claim_violation_record{c.task, c.attempt, c.path, c.other_task,
                                              c.attribution, c.candidates, c.action, c.at});
        if (list.size() > max_claim_violations)
          list.erase(list.begin(),
                     list.begin() + static_cast<std::ptrdiff_t>(list.size() - max_claim_violations));
        return status::ok();
      },
    },
    change);
}

} // namespace ad::runtime
