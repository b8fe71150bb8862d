#include "runtime/run/stage_steps.hpp"

#include "runtime/policy/supervisor.hpp"
#include "runtime/schedule/task_view.hpp"
#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {

std::string_view to_string(stage_next n) {
  switch (n) {
    case stage_next::advance: return "advance";
    case stage_next::complete: return "complete";
    case stage_next::pause: return "pause";
    case stage_next::blocked: return "blocked";
  }
  return "unknown";
}

namespace {

stage_step block(const std::string& task, std::string reason, std::string evidence = {}) {
  stage_step s;
  s.next = stage_next::blocked;
  s.reason = reason;
  s.changes.push_back(clear_active_stage{task});
  s.changes.push_back(set_blocked{task, blocked_info{std::move(reason), std::move(evidence)}});
  return s;
}

} // namespace

stage_step after_worker_success(const std::string& task, const task_state& st, const policy& pol,
                                const attempt_identity& actual) {
  auto it = st.decisions.find("worker");
  if (it == st.decisions.end())
    return block(task, "worker succeeded without a recorded worker decision");
  const route_decision& d = it->second;
  const policy_target* target = pol.find_target(d.selected_target);
  if (!target)
    return block(task, "completing decision names unknown target " + d.selected_target);
  completing_target expected{d.stage, d.work_unit_id, target->adapter, target->model};
  auto ok = check_completing_identity(expected, st.work_unit_id, actual);
  if (!ok.is_ok())
    return block(task, ok.message());
  stage_step s;
  s.next = stage_next::advance;
  s.changes = on_attempt_succeeded(task, st, "worker");
  s.changes.push_back(clear_active_stage{task});
  s.changes.push_back(set_task_flag{task, task_flag::worker_done, true});
  s.changes.push_back(set_completing_decision{task, d});
  return s;
}

stage_step after_selfcheck_success(const std::string& task, const task_state& st,
                                   const policy& pol, const checklist_reading& checklist) {
  if (checklist.state == checklist_state::complete) {
    stage_step s;
    s.changes = on_attempt_succeeded(task, st, "selfcheck");
    s.changes.push_back(clear_active_stage{task});
    s.changes.push_back(set_task_flag{task, task_flag::selfcheck_done, true});
    s.changes.push_back(set_counter{task, selfcheck_rounds_counter, 0});
    return s;
  }
  int64_t rounds = 1;
  if (auto c = st.counters.find(selfcheck_rounds_counter); c != st.counters.end())
    rounds = c->second + 1;
  if (rounds >= pol.budgets.selfcheck_incomplete) {
    auto s = block(task, "self-check left the implementation checklist incomplete after " +
                             std::to_string(rounds) + " rounds (" +
                             std::to_string(checklist.open) + " open boxes)");
    s.changes.push_back(set_counter{task, selfcheck_rounds_counter, rounds});
    return s;
  }
  stage_step s;
  s.next = stage_next::advance;
  s.changes.push_back(clear_active_stage{task});
  s.changes.push_back(set_counter{task, selfcheck_rounds_counter, rounds});
  s.reason = "self-check round " + std::to_string(rounds) + ": checklist still incomplete";
  return s;
}

stage_step after_review(const std::string& task, const review_outcome& outcome,
                        const progress_step& progress) {
  auto settled = settle_review(outcome);
  if (settled.next == review_next::complete) {
    stage_step s;
    s.next = stage_next::complete;
    s.changes.push_back(clear_active_stage{task});
    s.changes.push_back(set_counter{task, review_no_progress_counter, 0});
    return s;
  }
  if (progress.action == progress_action::block)
    return block(task, progress.reason);
  if (settled.next == review_next::error && progress.action == progress_action::progressed)
    return block(task, settled.reason);
  stage_step s;
  s.changes.push_back(clear_active_stage{task});
  s.changes.push_back(set_counter{task, review_no_progress_counter, progress.count});
  if (progress.action == progress_action::pause) {
    s.next = stage_next::pause;
    s.pause = progress.pause;
    s.reason = progress.reason;
  } else {
    s.next = stage_next::advance;
    s.reason = std::string(to_string(outcome.kind));
  }
  return s;
}

stage_step after_review_reading(const std::string& task, std::string_view task_folder,
                                const task_state& st, const policy& pol,
                                const review_reading& reading) {
  review_outcome outcome;
  if (reading.observed)
    outcome = classify_review_outcome(reading.after, reading.before, task_folder);
  int prior = 0;
  if (auto c = st.counters.find(review_no_progress_counter); c != st.counters.end())
    prior = static_cast<int>(c->second);
  no_progress_policy limit;
  limit.limit = pol.budgets.review_no_progress;
  auto progress = after_review(prior, reading.signature_before, reading.signature_after, limit);
  auto step = after_review(task, outcome, progress);
  if (step.next == stage_next::complete) {
    auto done = completion_changes(task, task_group(task), outcome.folder);
    step.changes.insert(step.changes.end(), done.begin(), done.end());
    step.reason = outcome.folder;
  }
  return step;
}

std::vector<state_change> completion_changes(const std::string& task, const std::string& scope,
                                             const std::string& archive) {
  std::vector<state_change> out;
  out.push_back(clear_active_stage{task});
  out.push_back(release_claim{task});
  if (!scope.empty())
    out.push_back(complete_orchestration_task{scope, task, archive});
  return out;
}

} // namespace ad::runtime
