#pragma once
// Messages and typed interfaces of attempts (actors/attempt): the
// attempt-host interface through which an attempt is started and cancelled
// (a local host today, a remote node later), the attempt actor itself, and
// the pi session watcher that reports a pi session's phase to its attempt.
// Every struct is a value with a free inspect() (flags instead of optional
// members) so it can cross hosts. start_attempt is answered once, when the
// attempt has ended and its final locator is on disk, with an
// attempt_result; an attempt that could not even write its files answers
// with an error (errc::state_unavailable). Registered by
// add_attempt_messages().

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_system_config.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/typed_actor.hpp>

#include "messages/coroutine.hpp"
#include "messages/process.hpp"
#include "messages/wire.hpp"
#include "runtime/run/attempt_order.hpp"

namespace ad::runtime {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_timing& x) {
  return f(caf::meta::type_name("attempt_timing"), x.heartbeat_ms, x.silence_inspection_ms,
           x.stall_limit_ms, x.terminate_grace_ms, x.pi_poll_ms, x.spawn_timeout_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cli_launch_caps& x) {
  return f(caf::meta::type_name("cli_launch_caps"), x.detected, x.version, x.pi_approve,
           x.pi_session_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_progress_rule& x) {
  return f(caf::meta::type_name("attempt_progress_rule"), x.network_wait_ms, x.retrying_ms,
           x.failover_available);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_order& x) {
  return f(caf::meta::type_name("start_attempt"), x.task, x.plan_number, x.role, x.attempt,
           x.workspace, x.workspace_id, x.runs_dir, x.work_log, x.adapter, x.executable, x.model,
           x.effort, x.prompt, x.session_id, x.native_session_file, x.resumed_from_locator,
           x.provider, x.caps, x.plan_path, x.review_path, x.write_paths, x.command_template, x.env_additions,
           x.has_selector_evidence, x.selector_evidence, x.stage_budget, x.retry_handoff_id,
           x.progress, x.timing, x.line_cap, x.node, x.keep_alive, x.usage_reader, x.has_prices,
           x.prices);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_result& x) {
  return f(caf::meta::type_name("attempt_result"), x.identity, x.locator_path, x.attempt_dir,
           x.status, x.exit_code, x.pid, x.failure_class, x.failure_source, x.evidence,
           x.evidence_origin, x.termination_signal, x.session_id, x.native_session_path,
           x.started_at, x.finished_at, x.heartbeats, x.silence_inspected, x.has_reset_at,
           x.reset_at, x.usage);
}

} // namespace ad::runtime

namespace ad::messages {

// The attempt's order and result are runtime/ values (runtime/run/
// attempt_order.hpp), sent as they are; their fields cross hosts directly.
using attempt_timing = runtime::attempt_timing;
using cli_launch_caps = runtime::cli_launch_caps;
using attempt_progress_rule = runtime::attempt_progress_rule;
using start_attempt = runtime::attempt_order;
using attempt_result = runtime::attempt_result;

// Takes over an attempt another dispatcher started under its keeper (after
// a crash or a restart): the attempt described by `order` (the same task,
// role, attempt number, adapter and model), whose locator is at `locator`
// and whose keeper runs (or ran) as keeper_pid with that start token. It is
// followed from its spool's first line to its classified end and answered
// like start_attempt.
struct adopt_attempt {
  runtime::attempt_order order;
  std::string locator;
  int32_t keeper_pid = 0;
  std::string keeper_start_token;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, adopt_attempt& x) {
  return f(caf::meta::type_name("adopt_attempt"), x.order, x.locator, x.keeper_pid,
           x.keeper_start_token);
}

// Stops a running attempt: its process group is terminated and it ends as
// `cancelled`. Unknown identities are ignored.
struct cancel_attempt {
  std::string identity;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cancel_attempt& x) {
  return f(caf::meta::type_name("cancel_attempt"), x.identity);
}

// Distributed mode: where the attempt with this identity will run. The
// node pool answers with a node it has reserved a slot on for that
// identity (the start_attempt that follows names it in its order), or with
// no node and the reason, and the task asks again shortly. The local host
// answers "local".
struct place_attempt {
  std::string identity;
  std::string task;
  std::string adapter;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, place_attempt& x) {
  return f(caf::meta::type_name("place_attempt"), x.identity, x.task, x.adapter);
}

struct attempt_placement {
  std::string node;
  std::string waiting_reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_placement& x) {
  return f(caf::meta::type_name("attempt_placement"), x.node, x.waiting_reason);
}

// Where a pi session lives: a known file, or the file in session_dir whose
// name holds session_id, or without an id the newest file there (found once
// pi creates it).
struct pi_watch_target {
  std::string session_file;
  std::string session_dir;
  std::string session_id;
  int64_t poll_ms = 2'000;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pi_watch_target& x) {
  return f(caf::meta::type_name("pi_watch_target"), x.session_file, x.session_dir, x.session_id,
           x.poll_ms);
}

// One reading of a pi session (runtime::pi_session_state plus the file).
struct pi_phase_report {
  std::string session_file;  // "" while not found
  std::string phase;         // starting, awaiting-model, tool-running, finishing, unknown
  std::string reason;
  std::vector<std::string> expected_tool_call_ids;
  std::vector<std::string> completed_tool_call_ids;
  std::vector<std::string> pending_tool_call_ids;

  friend bool operator==(const pi_phase_report&, const pi_phase_report&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pi_phase_report& x) {
  return f(caf::meta::type_name("pi_phase_report"), x.session_file, x.phase, x.reason,
           x.expected_tool_call_ids, x.completed_tool_call_ids, x.pending_tool_call_ids);
}

// A file-system observation entering the watcher (what it read at a poll);
// replaying these replays the watcher's reports.
struct pi_session_observed {
  pi_phase_report reading;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pi_session_observed& x) {
  return f(caf::meta::type_name("pi_session_observed"), x.reading);
}

// Sent by the watcher to its attempt whenever the phase (or its ids) changes.
struct pi_phase_changed {
  pi_phase_report report;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pi_phase_changed& x) {
  return f(caf::meta::type_name("pi_phase_changed"), x.report);
}

// What a subscriber to a pi watcher handles.
using pi_phase_subscriber_actor = caf::typed_actor<caf::reacts_to<pi_phase_changed>>;

// The pi session watcher: polls on its own timer, and takes observations
// (from its polls or a replay) as messages.
using pi_watcher_actor =
  caf::typed_actor<caf::reacts_to<pi_session_observed>>::extend_with<
    coroutine_wake_actor>;

// Starts and cancels attempts: the local host, or the node pool of
// distributed mode (actors/node).
using attempt_runner_actor =
  caf::typed_actor<caf::replies_to<start_attempt>::with<attempt_result>,
                   caf::replies_to<adopt_attempt>::with<attempt_result>,
                   caf::reacts_to<cancel_attempt>>;
using attempt_host_actor =
  attempt_runner_actor::extend<caf::replies_to<place_attempt>::with<attempt_placement>>;

// One attempt: the host's interface plus the events it follows.
using attempt_actor = attempt_runner_actor::extend_with<process_subscriber_actor>::extend_with<
  pi_phase_subscriber_actor>::extend_with<coroutine_wake_actor>;

void add_attempt_messages(caf::actor_system_config& cfg);

} // namespace ad::messages
