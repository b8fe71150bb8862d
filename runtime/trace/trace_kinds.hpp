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
// Decisions.
inline constexpr std::string_view supervisor_step = "supervisor.step";
inline constexpr std::string_view attempt_classified = "attempt.classified";
inline constexpr std::string_view worklog_row = "worklog.row";
// The scheduler machine's event and the commands it produced (the
// scheduler actor).
inline constexpr std::string_view scheduler_event = "scheduler.event";
inline constexpr std::string_view scheduler_commands = "scheduler.commands";
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
