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
#include "runtime/policy/supervisor.hpp"
#include "runtime/policy/tactical.hpp"
#include "runtime/run/named_paths.hpp"
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

parsed_step parse_step(const runtime::next_step& step, runtime::millis now);

// The wait_until step of a durable quota-reset wait found at the start.
parsed_step resumed_reset_wait(const task_actor_state& s, runtime::millis until,
                               runtime::millis now);

// The wait_until step when every candidate target cools down at the start.
parsed_step cooldown_wait(runtime::millis until, runtime::millis now, const std::string& why);

// The supervisor's request for the attempt r that failed: its failure
// report, the task's paths, the write set now and what is known about the
// files the failure's message names (read through the task's io).
runtime::supervisor_request supervisor_request_of(const task_actor_state& s,
                                                  const messages::attempt_result& r);

struct target_choice {
  std::vector<runtime::state_change> changes; // decision records, or the block
  std::string target;
  std::string prompt;
  std::string consume_handoff;
  std::string blocked; // non-empty: the task is blocked with this reason
  runtime::millis wait_until = 0; // > 0: every candidate cools down; try again then
  std::string wait_reason;
};

target_choice choose_target(const task_actor_state& s);

// What a task does when it begins (or wakes from a wait) at `now`: resume a
// quota-reset wait made durable before a restart (reset_until > 0, nothing
// chosen), else the target choice on s.ctx's clock.
struct begin_step {
  runtime::millis reset_until = 0;
  parsed_step reset_wait; // when reset_until > 0
  target_choice choice;   // otherwise
};

begin_step decide_begin(const task_actor_state& s, runtime::millis now);

messages::start_attempt make_start_attempt(const task_actor_state& s,
                                           const runtime::policy_target& target, int64_t attempt,
                                           std::string prompt, std::string native_session,
                                           const std::string& handoff_id);

// Before a review starts: the verdict sources and the progress signature.
void capture_review_baseline(task_actor_state& s);

// What the step after a successful attempt reads besides the result and
// the task state: the runtime identity in the locator (worker), the
// checklist (self-check), or the review reading (review: the baseline taken
// at launch and the folders and progress signature now).
struct success_reading {
  struct runtime::attempt_identity runtime_identity;
  runtime::checklist_reading checklist;
  runtime::review_reading review;
};

success_reading read_after_success(const task_actor_state& s, const messages::attempt_result& r);

// The stage step after a success, decided on a reading alone (replay calls
// it on the recorded reading).
runtime::stage_step step_after_success(const task_spec& spec, const runtime::task_state& st,
                                       const runtime::policy& pol, const success_reading& reading);

// Where a task actor reads files (and removes its attempt logs): the
// workspace and state root in a run (file_task_io), the trace in replay.
// Each call runs inside one of the actor's steps and must not block long.
class task_io {
public:
  virtual ~task_io() = default;
  // Before a review starts: sets s.review_seen and s.review_signature.
  virtual void capture_review_baseline(task_actor_state& s) const = 0;
  virtual success_reading read_after_success(const task_actor_state& s,
                                             const messages::attempt_result& r) const = 0;
  // The write set's files now (after an attempt).
  virtual std::vector<runtime::file_snapshot> current_write_set(
    const task_actor_state& s) const = 0;
  // The write-set snapshot change recorded with an attempt's start.
  virtual runtime::state_change snapshot_before(const task_actor_state& s,
                                                const std::string& identity) const = 0;
  // After the task completed: its attempt logs in the runs folder go.
  virtual void remove_attempt_logs(const task_actor_state& s) const = 0;
  // What is known about the files a failure's message named.
  virtual std::vector<runtime::named_file> named_files(
    const runtime::named_path_query& query) const = 0;
};

// The real files (the functions above and runtime/run).
const task_io& file_task_io();
// s.ctx->io, or file_task_io() when the context has none.
const task_io& io_of(const task_actor_state& s);

void emit_task_started(const task_actor_state& s);
void emit_attempt_began(const task_actor_state& s, const messages::start_attempt& req);
void emit_attempt_ended(const task_actor_state& s, const messages::attempt_result& r);
void emit_step_event(const task_actor_state& s, const parsed_step& step);
// The supervisor's tactical diagnostic events: a match is shown as
// tactical_matched with the step taken about it.
void emit_tactical_events(const task_actor_state& s,
                          const std::vector<runtime::tactical_event>& events,
                          const parsed_step& step);

} // namespace ad::actors
