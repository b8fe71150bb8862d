#pragma once
// Helpers of the task actor that only translate between messages and
// runtime/ values: the start_attempt request, the supervisor request, the
// supervisor's step as a flat value, the target choice of a stage, the
// stage step after a successful attempt (reading the locator, checklist and
// review folders) and the run events sent to the output actor. No actor
// logic lives here; every function is synchronous and never throws.

#include <string>
#include <vector>

#include "actors/scheduler/task_actor.hpp"
#include "runtime/run/stage_steps.hpp"

namespace ad::actors {

// The supervisor's next step, flattened.
struct parsed_step {
  std::string kind;   // retry_same | failover | promote | resume_native | wait_until | block
  std::string target;
  std::string prompt;
  std::string native_session;
  runtime::millis delay = 0;
  std::string reason;
};

parsed_step parse_step(const messages::supervision_decided& d, runtime::millis now);

std::string supervisor_request_json(const task_spec& spec, const run_context& ctx,
                                    const messages::attempt_result& r);

struct target_choice {
  std::vector<runtime::state_change> changes; // decision records, or the block
  std::string target;
  std::string prompt;
  std::string consume_handoff;
  std::string blocked; // non-empty: the task is blocked with this reason
};

target_choice choose_target(const task_actor_state& s);

messages::start_attempt make_start_attempt(const task_actor_state& s,
                                           const runtime::policy_target& target, int64_t attempt,
                                           std::string prompt, std::string native_session,
                                           const std::string& handoff_id);

// Before a review starts: the verdict sources and the progress signature.
void capture_review_baseline(task_actor_state& s);

runtime::stage_step stage_step_after_success(const task_actor_state& s,
                                             const messages::attempt_result& r);

void emit_task_started(const task_actor_state& s);
void emit_attempt_began(const task_actor_state& s, const messages::start_attempt& req);
void emit_attempt_ended(const task_actor_state& s, const messages::attempt_result& r);
void emit_step_event(const task_actor_state& s, const parsed_step& step);

} // namespace ad::actors
