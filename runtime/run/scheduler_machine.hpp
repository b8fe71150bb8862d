#pragma once
// The scheduler of `agent-dispatch run` (SPEC sections 4, 8, 9, 10) as one
// pure machine, the twin of the task machine (task_machine.hpp): a typed
// event goes in with the one clock reading of its handling, the machine
// moves on and returns the typed commands its owner carries out, in order.
//
// It keeps a mirror of the durable state (the store's snapshot, then every
// publication), its own copy of the scanned tasks (scan_copy: what each
// refresh read), the pass planner, and what runs: the tasks it started, the
// agents that survived a restart (followed as running elsewhere), the
// attempts adopted from their keepers, the paused tasks and the paths
// written outside a claim by attempts still running. A pass
//   1. (first pass only) applies `--retry-blocked` or lifts blocks by an
//      unwritable work log that is writable again, and judges every active
//      stage left in state (restart safety: live, stale, kept);
//   2. re-probes the tasks running elsewhere, ends expired pauses, refreshes the scan,
//      finds the archive folders its first sightings and reconciliations
//      need, reconciles orchestration scopes whose tasks vanished, reads the
//      groups that may close, and plans admission;
//   3. makes its changes durable, and only then removes the attempt logs of
//      the tasks it completed, moves the work logs of the closing groups to
//      the archive and makes their closing durable;
//   4. runs the admission quota batch of the admitted workers (when their
//      targets have probes) and starts the adopted attempts and the
//      admitted tasks, in that order.
// Every read of the workspace, the archive, the active stages and the work
// logs is a command answered by an event: the machine does no I/O, has no
// clock of its own, never throws. A task_ended, a poll or a publication
// asks for another pass (passes never overlap: one asked for during a pass
// runs after it). A shutdown stops admissions and the running tasks; a
// refused change or a failed scan stops admissions and lets running tasks
// end. When nothing runs or waits here any more the machine decides the
// exit code (runtime/run/exit_code), shows the summary and finishes.
// An event that does not fit (an answer nobody waits for) changes nothing.
//
// The scheduler actor (actors/scheduler) is its interpreter; the message
// trace records each event and its commands (scheduler.event ->
// scheduler.commands) and replay feeds the recorded events to a new machine
// and compares the commands (runtime/replay/scheduler_replay).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "runtime/policy/policy.hpp"
#include "runtime/policy/quota.hpp"
#include "runtime/policy/time_zone.hpp"
#include "runtime/report/run_event.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/run/pass_planner.hpp"
#include "runtime/run/run_pass.hpp"
#include "runtime/run/task_spec.hpp"
#include "runtime/schedule/reason_tracker.hpp"
#include "runtime/state/change.hpp"
#include "runtime/state/model.hpp"
#include "runtime/workspace/scan_copy.hpp"

namespace ad::runtime {

// What the scheduler decides with besides its events. The policy and zone
// must outlive the machine.
struct scheduler_context {
  const policy* pol = nullptr;
  const time_zone* zone = nullptr;
  std::string task_root;   // <workspace>/agent-task
  std::string task_group;  // --task-group, "" for all
  int max_parallel = 0;
  bool retry_blocked = false;
  millis poll_every = 1'000; // tasks running elsewhere and pauses are looked at again this often
};

// Who answered a request with an error.
enum class scheduler_peer : uint8_t { state_store, quota_prober };
std::string_view to_string(scheduler_peer peer); // "state store", "quota prober"

namespace sched_ev {
struct begun {};                  // the run starts
struct state_snapshot {           // answer to subscribe_state
  uint64_t seq = 0;
  state_model state;
};
struct state_published {          // the store made changes durable (anyone's)
  uint64_t seq = 0;
  std::vector<state_change> changes;
};
struct state_applied {            // answer to make_durable
  uint64_t seq = 0;
};
struct request_failed {           // a request was answered with an error
  scheduler_peer peer = scheduler_peer::state_store;
  std::string error;
};
struct work_logs_probed {         // answer to probe_work_logs
  std::map<std::string, bool> writable; // task -> its group's work log can be written
};
struct active_stages_read {       // answer to read_active_stages
  std::vector<active_stage_reading> readings;
};
struct scan_read {                // answer to refresh_scan
  scan_reading reading;
};
struct scan_failed {              // answer to refresh_scan: the old scan stays
  std::string error;
};
struct archives_found {           // answer to find_archives
  std::map<std::string, std::vector<std::string>> folders; // task -> archived with complete.log
};
struct work_logs_archived {       // answer to archive_work_logs
  std::map<std::string, work_log_archive_outcome> moved; // group -> how its move ended
};
struct quota_probed {             // answer to run_quota_probes
  probe_snapshot snapshot;
};
struct task_ended {               // a task started here ended
  std::string task;
  std::string stage;
  std::string outcome;            // advance | complete | blocked | pause | error | cancelled
  std::string reason;
  millis pause = 0;
};
struct claim_violation {          // the claim watcher's note (durable already)
  std::vector<live_violation> live; // paths written outside a claim by running attempts
  std::string task;               // the writer's task ("" when unknown)
  std::string stop_task;          // a policy block: the task to stop
  std::string reason;
};
struct violation_ended {          // an attempt with live violations ended
  std::string attempt;
};
struct poll {};                   // the timer of wake_at fired
struct shutdown {};               // SIGINT / SIGTERM
} // namespace sched_ev

using scheduler_event =
  std::variant<sched_ev::begun, sched_ev::state_snapshot, sched_ev::state_published,
               sched_ev::state_applied, sched_ev::request_failed, sched_ev::work_logs_probed,
               sched_ev::active_stages_read, sched_ev::scan_read, sched_ev::scan_failed,
               sched_ev::archives_found, sched_ev::work_logs_archived, sched_ev::quota_probed,
               sched_ev::task_ended, sched_ev::claim_violation, sched_ev::violation_ended,
               sched_ev::poll, sched_ev::shutdown>;

namespace sched_cmd {
struct subscribe_state {};        // the state now and every publication; answer: state_snapshot
struct make_durable {             // answer: state_applied
  std::vector<state_change> changes;
};
struct probe_work_logs {          // answer: work_logs_probed
  std::vector<std::string> tasks;
};
struct read_active_stages {       // every task of `state` with an active stage; answer: active_stages_read
  state_model state;
};
struct refresh_scan {             // answer: scan_read or scan_failed
  std::vector<std::string> also;  // folders known to have changed
};
struct find_archives {            // answer: archives_found
  std::vector<std::string> tasks;
};
struct archive_work_logs {        // move each group's work log to the archive; answer: work_logs_archived
  std::vector<std::string> groups;
};
struct remove_attempt_logs {      // a completed task's attempt folders go
  std::string task;
};
struct run_quota_probes {         // answer: quota_probed (or request_failed)
  std::vector<planned_probe> plan;
  std::string id;
};
struct tell_supervisor {          // the admission batch's snapshot (quota_batch_taken)
  probe_snapshot snapshot;
};
struct start_task {               // a task actor for one admitted stage (or adoption)
  task_spec spec;
};
struct stop_task {                // stop a task started here
  std::string task;
  std::string reason;
};
struct wake_at {                  // a timer; answer: poll
  millis at = 0;
};
struct checkpoint {               // a named point a crash test may stop at
  std::string name;
};
struct show {                     // a run event for the output
  run_event event;
};
struct finish_run {               // the run is over: tell the waiter, then stop
  int exit_code = 0;
  std::string summary;
  std::vector<std::string> details;
};
} // namespace sched_cmd

using scheduler_command =
  std::variant<sched_cmd::subscribe_state, sched_cmd::make_durable, sched_cmd::probe_work_logs,
               sched_cmd::read_active_stages, sched_cmd::refresh_scan, sched_cmd::find_archives,
               sched_cmd::archive_work_logs, sched_cmd::remove_attempt_logs,
               sched_cmd::run_quota_probes, sched_cmd::tell_supervisor, sched_cmd::start_task,
               sched_cmd::stop_task, sched_cmd::wake_at, sched_cmd::checkpoint, sched_cmd::show,
               sched_cmd::finish_run>;

// Where the machine is; every phase but idle and finished waits for the
// answer its name says.
enum class scheduler_phase : uint8_t {
  idle,               // no pass under way
  subscribing,        // the state snapshot
  deferred,           // the mirror lags our own changes: a publication resumes the pass
  probing_work_logs,  // first pass: the work logs of tasks blocked by them
  reading_stages,     // first pass: every active stage
  startup_durable,    // first pass: its changes
  reading_elsewhere,  // the active stages of the tasks running elsewhere
  scanning,           // the workspace scan
  finding_archives,   // archive folders of first sightings and vanished tasks
  pass_durable,       // the pass's changes
  archiving,          // the closing groups' work logs
  closing_durable,    // the groups' closing
  probing_quota,      // the admission quota batch
  finished,
};
std::string_view to_string(scheduler_phase phase);

// The status word a task's admission shows (tasks_scanned, the summary).
std::string_view status_word(admission_kind kind);
// What a waiting task waits for (run_event::wait): one of the wait_* words
// of runtime/report/run_event.hpp, "" for an entry that does not wait.
std::string_view wait_word(const admission_entry& entry);

class scheduler_machine {
public:
  explicit scheduler_machine(scheduler_context ctx);

  // One event handled at `now`: the commands to carry out, in order. Taken
  // by value: the state of a state_snapshot becomes the mirror without a
  // copy (a caller that records the event does so before the step).
  std::vector<scheduler_command> step(millis now, scheduler_event event);

  scheduler_phase phase() const noexcept { return phase_; }
  bool finished() const noexcept { return phase_ == scheduler_phase::finished; }
  // What the machine follows (for tests and the interpreter's checks).
  const std::set<std::string>& running() const noexcept { return running_; }
  const std::map<std::string, std::string>& running_elsewhere() const noexcept { return elsewhere_; }
  const std::map<std::string, millis>& paused() const noexcept { return paused_; }
  const state_model& mirror() const noexcept { return mirror_; }
  const pass_planner& planner() const noexcept { return planner_; }
  const scan_copy& scan() const noexcept { return scan_; }

private:
  using out_t = std::vector<scheduler_command>;

  void want_pass(millis now, out_t& out);
  void start_pass(millis now, out_t& out);
  void over_mirror(millis now, out_t& out);
  void startup(millis now, out_t& out);
  void startup_stages(millis now, out_t& out);
  void startup_read(millis now, const std::vector<active_stage_reading>& readings, out_t& out);
  void elsewhere_read(millis now, const std::vector<active_stage_reading>& readings, out_t& out);
  void expire_and_scan(millis now, out_t& out);
  void scanned(millis now, out_t& out);
  void plan(millis now, out_t& out);
  void pass_is_durable(millis now, out_t& out);
  void groups_archived(millis now, const std::map<std::string, work_log_archive_outcome>& moved,
                       out_t& out);
  void admit(millis now, out_t& out);
  void start_all(millis now, out_t& out);
  void persist(std::vector<state_change> changes, scheduler_phase next, millis now, out_t& out);
  void after_durable(millis now, out_t& out);
  void task_ended(millis now, const sched_ev::task_ended& e, out_t& out);
  void published(millis now, const sched_ev::state_published& p, out_t& out);
  void fail(millis now, std::string error, out_t& out);
  void finish_if_idle(millis now, out_t& out);
  void show(run_event e, out_t& out);

  bool live_or_scanned(const std::string& task) const;
  bool group_busy(const std::string& scope) const;
  std::set<std::string> scopes_to_check(bool full, const std::vector<std::string>& touched) const;
  std::vector<group_reading> groups_to_close(const state_model& model,
                                             const std::set<std::string>& scopes) const;
  planner_input planner_in() const;
  bool stopped() const { return stopping_ || !terminal_error_.empty(); }

  scheduler_context ctx_;
  scheduler_phase phase_ = scheduler_phase::idle;
  // The durable state as published, and the seqs of the mirror and of our
  // own applied changes.
  state_model mirror_;
  uint64_t mirror_seq_ = 0;
  uint64_t applied_seq_ = 0;
  bool subscribed_ = false;
  bool first_pass_ = true;
  bool pass_wanted_ = false;
  bool poll_scheduled_ = false;
  bool stopping_ = false;
  bool interrupted_ = false;
  std::string terminal_error_; // stops admissions
  scan_copy scan_;
  pass_planner planner_;
  // What runs or waits here.
  std::set<std::string> running_;                  // started here, not ended
  std::map<std::string, std::string> elsewhere_;   // task -> detail: running elsewhere
  std::vector<attempt_adoption> adopting_;         // kept attempts, started by the next pass
  std::map<std::string, millis> paused_;           // task -> until (review no-progress)
  std::vector<live_violation> live_violations_;
  bool violations_changed_ = false;
  // What the next pass re-examines.
  std::set<std::string> touched_;
  std::vector<std::string> ended_dirs_;
  bool claims_changed_ = false;
  // What the run reports.
  std::map<std::string, std::string> failed_tasks_; // task -> reason (ended in error)
  std::set<std::string> run_errors_;                // reconciliation and work-log errors
  int completed_ = 0;                               // tasks completed by this run
  reason_tracker reasons_;
  std::map<std::string, std::string> block_shown_;  // task -> block reason its end showed
  std::map<std::string, std::string> shown_;        // task -> last tasks_scanned line
  int64_t quota_batches_ = 0;
  // The pass under way.
  struct pass_state {
    planner_input in;          // scan facts and touched set of this pass
    std::vector<state_change> changes;
    std::vector<std::pair<std::string, std::string>> completed; // task, archive
    std::vector<group_reading> closing;
    std::vector<task_spec> start;
    std::vector<task_spec> adopt;
    std::vector<planned_probe> probes;
    std::map<std::string, std::vector<std::string>> archives; // task -> folders found
    std::vector<std::string> errors;
    bool handoff = false;     // startup: a retry handoff was made durable
  } pass_;
};

// The names of events and commands ("task_ended", "start_task", ...). Their
// JSON forms (the trace's scheduler.event and scheduler.commands) are in
// runtime/records/scheduler_records.hpp.
std::string_view event_name(const scheduler_event& e);
std::string_view command_name(const scheduler_command& c);

} // namespace ad::runtime
