#pragma once
// The kinds of the message trace's records (docs/traces.md): edges are
// what enters the decision side (a message, a reading, a clock), decisions
// what it decided on them. Recording and replay both name records by these
// constants. Constants only.

#include <string_view>

namespace ad::runtime::trace_kinds {

// Edges (messages entering the decision side).
inline constexpr std::string_view supervisor_failure = "supervisor.failure"; // supervise_failure
inline constexpr std::string_view quota_batch = "supervisor.quota_batch";    // quota_batch_taken
inline constexpr std::string_view attempt_exit = "attempt.exit";     // classification inputs
inline constexpr std::string_view run_end = "run.end";             // final run observation
inline constexpr std::string_view scheduler_admission = "scheduler.admission"; // a pass's views
inline constexpr std::string_view scheduler_reconcile = "scheduler.reconcile"; // vanished tasks
inline constexpr std::string_view scheduler_liveness = "scheduler.liveness"; // active-stage probes
inline constexpr std::string_view scheduler_work_logs = "scheduler.work_logs"; // start-up: {"writable": {task: bool}}
inline constexpr std::string_view scheduler_sightings = "scheduler.sightings"; // examined tasks
inline constexpr std::string_view scheduler_group = "scheduler.group"; // a group's closing inputs
inline constexpr std::string_view scheduler_retry_blocked = "scheduler.retry_blocked"; // start-up
inline constexpr std::string_view scheduler_inbound = "scheduler.inbound"; // a message it handles
inline constexpr std::string_view scheduler_scan = "scheduler.scan"; // a pass's workspace refresh
// Decisions.
inline constexpr std::string_view supervisor_step = "supervisor.step";
inline constexpr std::string_view attempt_classified = "attempt.classified";
inline constexpr std::string_view worklog_row = "worklog.row";
inline constexpr std::string_view scheduler_startup = "scheduler.startup";
inline constexpr std::string_view scheduler_pass = "scheduler.pass";
inline constexpr std::string_view scheduler_admitted = "scheduler.admitted";
inline constexpr std::string_view scheduler_reconciled = "scheduler.reconciled";
inline constexpr std::string_view scheduler_active_stages = "scheduler.active_stages";
inline constexpr std::string_view scheduler_sighted = "scheduler.sighted";
inline constexpr std::string_view scheduler_group_close = "scheduler.group_close";
inline constexpr std::string_view scheduler_retry_cleared = "scheduler.retry_cleared";
inline constexpr std::string_view run_exit = "run.exit";
// A task machine's event and the commands it produced (task actors).
inline constexpr std::string_view task_event = "task.event";
inline constexpr std::string_view task_commands = "task.commands";
// An attempt's output, pi phases and silence timers (attempt actors).
inline constexpr std::string_view attempt_line = "attempt.line";   // one line of agent output
inline constexpr std::string_view attempt_phase = "attempt.phase"; // a pi phase report
inline constexpr std::string_view attempt_review_control = "attempt.review_control";
inline constexpr std::string_view attempt_no_progress = "attempt.no_progress";
inline constexpr std::string_view attempt_follow = "attempt.follow";   // the agent runs
inline constexpr std::string_view attempt_silence = "attempt.silence"; // a silence timer fired
inline constexpr std::string_view attempt_silence_due = "attempt.silence_due";

} // namespace ad::runtime::trace_kinds
