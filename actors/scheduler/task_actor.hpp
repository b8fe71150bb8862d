#pragma once
// The task actor: runs one admitted stage of one task (SPEC sections 3 and
// 7). It selects the target through runtime/policy selection (the decision
// is made durable first), records the attempt start through the state store
// BEFORE asking the attempt host to start it, and on the attempt's end
// either applies the stage step (runtime/run/stage_steps: worker identity
// check, self-check rounds, review outcome and no-progress limit) or asks
// the supervisor and applies its step (retry, failover, promotion, native
// resume, wait, block; changes durable first). On completion it releases
// the claim and removes the task's attempt logs. Around every attempt it
// records write-set snapshots (before: with the attempt start; after: before
// the supervisor is asked) so a tactical intervention knows which attempt
// touched which file; at the start it reads the supervisor's shared quota
// cool-downs, selects with the admission quota snapshot, and holds a durable
// quota-reset wait left by a restart. It tells the scheduler how the stage
// ended with task_ended and quits. stop_run cancels the running
// attempt (the agent's process group is terminated) and ends "cancelled";
// a stop that comes while a request is open ends the task "cancelled" once
// the answer is handled, before any wait or launch (a block or a finished
// stage still ends as decided).
// It never touches the workspace except through agents and reads, and it
// reads files only through ctx->io (actors/scheduler/task_steps.hpp:
// task_io), which replay feeds from a trace.

#include <functional>
#include <string>
#include <vector>

#include "actors/scheduler/run_context.hpp"
#include "messages/scheduler.hpp"
#include "runtime/policy/quota.hpp"
#include "runtime/schedule/review_outcome.hpp"
#include "runtime/state/model.hpp"

namespace ad::actors {

// The admitted task as the scan saw it.
struct task_spec {
  std::string name;
  std::string stage; // worker | selfcheck | review
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
  runtime::quota_snapshot admission_quota;
};

struct task_actor_state {
  static inline const char* name = "task";
  run_context_ptr ctx;
  task_spec spec;
  messages::scheduler_actor scheduler;
  runtime::task_state st;
  std::string identity;  // of the running attempt
  std::string last_locator; // of the attempt that ended last (a native resume continues it)
  std::string target;    // of the running attempt
  bool cancelled = false;
  bool attempt_running = false;
  runtime::seen_sources review_seen;
  std::string review_signature;
  int64_t begin_edge = 0; // the last task.begin trace edge (0: not tracing)
  int64_t stop_edge = 0;  // the task.stop trace edge (0: none, or not tracing)
  int64_t attempt_number = 0; // of the attempt launched last
  std::string attempt_model;  // its model (the work-log rows name it)
  std::vector<runtime::file_snapshot> write_set_after; // of the attempt that just ended
  runtime::target_cooldowns cooldowns; // shared quota cool-downs, read at the start
  std::function<void()> on_wake;
  bool timer_pending = false; // on_wake runs when a delayed wake fires
};

messages::task_actor::behavior_type task_actor_impl(
  messages::task_actor::stateful_pointer<task_actor_state> self, run_context_ptr ctx,
  task_spec spec, messages::scheduler_actor scheduler);

} // namespace ad::actors
