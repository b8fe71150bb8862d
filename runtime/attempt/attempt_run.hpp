#pragma once
// attempt_run: the bookkeeping of one attempt from folder creation to its
// classified end, without any actor code, so the attempt actor only moves
// messages and decides when to call it. It owns the attempt folder
// runs/<UTC stamp>__<identity>/ and its four files (docs/attempt-files.md):
// locator.json (replaced durably with write_file_atomic at creation, after
// the spawn with pid and start token, at every heartbeat and inspection, when
// a session id is discovered, and at the end), stream.log
// (`[stdout] line` / `[stderr] line`, one write per line),
// normalized-output.log (the adapter's rendering) and heartbeat.log. It also
// keeps the terminal diagnostics and writes the START and FINISH rows of the
// work log. One attempt_run belongs to one attempt (one thread at a time).
// Error contract: never throws. open() fails (io_error/invalid_argument)
// when the folder, the files or the first locator cannot be written or the
// argv cannot be built: then no process may start. A later locator refresh
// that fails is remembered (locator_write_error in the locator) but does not
// stop a live agent; a failed work-log row becomes the failure class
// work-log-write-failed.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/agents/adapter.hpp"
#include "runtime/agents/attempt_locator.hpp"
#include "runtime/agents/attempt_output.hpp"
#include "runtime/agents/failure_classifier.hpp"
#include "runtime/agents/failure_patterns.hpp"
#include "runtime/agents/native_sessions.hpp"
#include "runtime/agents/stream_render.hpp"
#include "runtime/agents/terminal_diagnostics.hpp"
#include "runtime/attempt/attempt_files.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/status.hpp"
#include "runtime/policy/usage_policy.hpp"
#include "runtime/worklog/work_log.hpp"

namespace ad::runtime {

inline constexpr std::string_view work_log_failure_class = "work-log-write-failed";

// Flow control between an agent's pipes and its attempt (docs/limits.md):
// at most attempt_flow_window bytes of lines are in flight (read from the
// pipes and not yet handled by the attempt); the attempt acknowledges every
// attempt_flow_ack bytes it has handled. An agent that writes faster than
// its attempt handles blocks in write(2), so the dispatcher's memory per
// attempt does not grow with the agent's output. The step must stay below
// half the window, or a paused agent would never be resumed.
inline constexpr uint64_t attempt_flow_window = uint64_t{4} << 20;
inline constexpr uint64_t attempt_flow_ack = uint64_t{512} << 10;
static_assert(attempt_flow_ack < attempt_flow_window / 2);

// Everything an attempt is started with (the runtime mirror of the
// start_attempt message).
struct attempt_setup {
  std::string task;
  int64_t plan_number = 0;
  std::string role;
  int64_t attempt = 0;
  std::filesystem::path workspace;
  std::string workspace_id;
  std::filesystem::path runs_dir;
  std::filesystem::path work_log; // empty: <workspace>/agent-task/<group>/WORK_LOG.md
  launch_spec launch;             // workspace, attempt_dir, session_id filled by open()
  std::vector<std::string> env_additions;
  json selector_evidence;         // null or an object
  int64_t stage_budget = 0;
  std::string retry_handoff_id;
  // Compiled once and shared by every attempt of a run; null: the default table.
  std::shared_ptr<const compiled_failure_patterns> failure_patterns;
  no_progress_settings progress;  // the adapter's no-progress rule (progress_watch.hpp)
  std::string resumed_from_locator; // pi native resume: the attempt it continues
  std::string node;                 // distributed mode: the worker node it runs on
  // The stream format usage is read from (nullopt: the adapter's own), and
  // the target's prices for a usage its CLI reports without a cost.
  std::optional<usage_format> usage_reader;
  std::optional<token_prices> prices;
  int dispatcher_pid = 0;
  std::string dispatcher_start_token;
  // The agent runs under its keeper (docs/keeper.md), which writes
  // stream.log itself: the attempt reads the lines back and does not write
  // them again, and seals the keeper's spool at the end.
  bool kept = false;
};

// What one output line changed.
struct line_outcome {
  bool session_discovered = false; // the locator was rewritten with it
  std::optional<std::string> review_control_tool; // terminate the agent
  std::optional<no_progress_stop> no_progress;    // terminate the agent
};

// What the attempt knows at the end.
enum class exit_how : uint8_t { exited, signaled };
struct attempt_end {
  launch_outcome launch = launch_outcome::started;
  std::string launch_error;
  exit_how how = exit_how::exited;
  int exit_code = 0;
  int exit_signal = 0;
  dispatcher_stop stop = dispatcher_stop::none;
  // Why the agent ended when its keeper could not say (the keeper died
  // first): the evidence of a failure that has none of its own.
  std::string end_note;
  // Lines of the agent's stream its keeper's spool retention cut before
  // they were read: a pi attempt's usage is then read from its session.
  uint64_t lost_stream_lines = 0;
};

// Marks end as that of an attempt whose agent never started (the command
// was not found, the spawn was refused): exit code launch_failure_exit_code
// and the reason; the rest of end is kept.
void mark_launch_failure(attempt_end& end, std::string reason);

// The result column of an attempt's FINISH row: "succeeded:0",
// "failed:cancelled" or "failed:<class>:<exit code>" (128 + signal when
// signaled, 127 when the agent never started), followed by what the
// attempt spent when its CLI reported anything:
// "succeeded:0 (spent 1,234 in · 56 out · $0.0012)".
std::string finish_row_result(const failure_verdict& v, const failure_inputs& in,
                              const token_usage& spent = {});

class attempt_run {
public:
  // Creates the folder and files, builds argv and writes the first locator
  // (status running, no pid). The folder name uses clk's time.
  static result<std::unique_ptr<attempt_run>> open(attempt_setup setup, const clock& clk);

  // Takes over the running (or ended) attempt whose locator is at
  // locator_path, started under its keeper by another dispatcher: the
  // locator is read back and now names this dispatcher, normalized output
  // is rendered again from the spool's first line (the caller feeds every
  // line), heartbeats go on in heartbeat.log, and no START row is written
  // again (the first dispatcher wrote it). setup must describe the same
  // attempt (task, role, attempt, adapter, model); io_error, not_found or
  // invalid_argument when the locator cannot be read or names another.
  static result<std::unique_ptr<attempt_run>> adopt(attempt_setup setup,
                                                    const std::filesystem::path& locator_path,
                                                    const clock& clk);

  const attempt_locator& locator() const noexcept { return locator_; }
  const std::filesystem::path& locator_path() const noexcept { return locator_path_; }
  const std::filesystem::path& attempt_dir() const noexcept { return attempt_dir_; }
  const std::vector<std::string>& argv() const noexcept { return argv_; }
  const std::string& marker() const noexcept { return locator_.process_marker; }
  const std::string& identity() const noexcept { return locator_.identity; }
  adapter_kind kind() const noexcept { return setup_.launch.kind; }
  const attempt_setup& setup() const noexcept { return setup_; }
  // pi: where the watcher looks for the session.
  std::filesystem::path pi_session_file() const;
  std::filesystem::path pi_session_folder() const;

  // Appends the START row. Failing, the attempt ends (finish_without_process).
  status write_start_row();

  // The process runs: pid and start token go into the locator at once.
  void on_started(int pid, std::string start_token);
  // The agent's keeper runs: its pid and start token go into the locator at
  // once (the agent's follow with on_started when the keeper names them).
  void on_keeper_started(int pid, std::string start_token);

  // One output line: stream.log, normalized output, diagnostics, session
  // discovery, review control, the no-progress rule (measured with `at`,
  // the ms the line arrived; unset: clk's time now).
  line_outcome on_line(output_channel channel, std::string_view text, bool truncated,
                       uint64_t dropped_bytes, std::optional<int64_t> at = std::nullopt);

  // A pi phase reading (recorded in the locator at the next write).
  void on_pi_phase(std::string session_file, std::string phase, std::string reason,
                   std::vector<std::string> pending_tool_call_ids);
  const std::string& pi_phase() const noexcept { return pi_phase_; }

  // What the agent spent so far (priced with setup().prices when its CLI
  // gave no cost); after finish(), the settled figures: a codex turn that
  // failed and a pi stream with lost lines are read from the CLI's session
  // file (usage_reader.hpp, settle_usage). Every locator write records it,
  // and while it grows the locator is rewritten at most every
  // usage_refresh_ms (the live views read tokens so far from it).
  token_usage usage() const;
  static constexpr millis usage_refresh_ms = 5'000;

  // heartbeat.log line + locator refresh.
  void heartbeat(int64_t silent_ms);
  // One silence inspection: heartbeat.log line with the stream tail, and the
  // locator's silence record.
  void inspect_silence(int64_t silent_ms);
  // heartbeat.log note that the stall limit was reached (the caller
  // terminates the agent).
  void stall(int64_t silent_ms, int64_t limit_ms);
  int64_t heartbeats() const noexcept { return heartbeats_; }

  // Ends an attempt whose process never started because the dispatcher
  // stopped it first (the START row failed: work-log-write-failed; a
  // cancellation: cancelled). Writes the FINISH row when it can, then the
  // final locator.
  failure_verdict fail_before_start(std::string failure_class, std::string failure_source,
                                    std::string evidence);

  // Classifies, writes the FINISH row and the final locator; returns the
  // verdict (failure_class work-log-write-failed when the row failed).
  failure_verdict finish(const attempt_end& end);

  // After finish(): what the classification was decided on and what it
  // decided (before a failed FINISH row replaced the verdict); null before.
  const failure_inputs* classification_inputs() const noexcept {
    return classified_ ? &classification_inputs_ : nullptr;
  }
  const failure_verdict& classification() const noexcept { return classification_; }
  // After finish(): the diagnostics read from files rather than output lines
  // (agy's CLI log), in the order they were added after the last line.
  const std::vector<terminal_diagnostic>& file_diagnostics() const noexcept {
    return file_diagnostics_;
  }

  // The work-log rows this attempt appended, in order (START, FINISH).
  const std::vector<work_log_event>& rows_written() const noexcept { return rows_written_; }
  // Warnings about the work log for a person: torn rows an append moved
  // aside (work_log_heal::message), in order.
  const std::vector<std::string>& work_log_warnings() const noexcept { return work_log_warnings_; }

private:
  attempt_run() = default;
  // Replaces locator.json (write_file_atomic). Synced where a later action
  // depends on what it says after a crash of the machine: the final status
  // (the task's next step follows it), an adoption, a silence inspection.
  // The rewrites naming the keeper and the agent, the session and the usage
  // so far, and a heartbeat are atomic but not synced: they matter while
  // the machine runs (a restart after a power loss finds no process alive,
  // and the first locator's marker, synced before the spawn, says so);
  // docs/attempt-files.md.
  void write_locator(durability mode = durability::synced);
  status start_output(const attempt_setup& setup);
  void find_agent_homes(const attempt_setup& setup);
  void heartbeat_line(std::string_view text);
  // Appends a row to the task's work log; a torn row moved aside on the way
  // is noted in heartbeat.log and work_log_warnings().
  status append_row(const work_log_event& event);
  // A kept attempt's end: what its keeper's containment did (exit.json)
  // goes into the locator, and a KILL row per process the agent left.
  void note_containment();
  void finish_line(const failure_verdict& v);
  // The kept tails of stream.log and normalized-output.log go into them.
  void seal_logs();

  attempt_setup setup_;
  const clock* clock_ = nullptr;
  attempt_locator locator_;
  std::filesystem::path attempt_dir_;
  std::filesystem::path locator_path_;
  std::vector<std::string> argv_;
  line_file stream_;
  line_file normalized_;
  line_file heartbeat_;
  compiled_failure_patterns patterns_;
  std::optional<attempt_output> output_; // set by open()
  std::vector<terminal_diagnostic> file_diagnostics_;
  bool classified_ = false;
  bool adopted_ = false; // followed from a keeper another dispatcher started
  std::vector<work_log_event> rows_written_;
  std::vector<std::string> work_log_warnings_;
  failure_inputs classification_inputs_;
  failure_verdict classification_;
  // Native session files (SPEC section 6): claude's projects folder, codex's
  // rollout for the discovered thread id, the pi session in its session
  // folder, the newest agy conversation changed since the attempt opened.
  // Looked up at session discovery, at every heartbeat and at the end, so
  // even an attempt that ends before the pi watcher's first reading records
  // its session. The folders follow the agent's environment (an env
  // addition wins over ours): HOME, CODEX_HOME, CLAUDE_CONFIG_DIR.
  void resolve_native_session();
  // At the end: the usage from the stream, or the session file's when the
  // stream lacks it.
  void settle_usage_at_end(uint64_t lost_stream_lines);
  std::optional<token_usage> settled_usage_;
  millis locator_written_at_ = 0;
  // codex: the rollout's final typed error, as the diagnostic codex:rollout.
  void read_codex_rollout();
  std::filesystem::path home_;
  std::filesystem::path codex_home_;
  std::filesystem::path claude_projects_;
  std::vector<file_entry> agy_before_;
  std::string pi_phase_;
  std::string pi_phase_reason_;
  std::vector<std::string> pi_pending_;
  int64_t heartbeats_ = 0;
};

} // namespace ad::runtime
