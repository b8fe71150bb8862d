#pragma once
// Liveness probes and the SPEC section 8 rule that decides whether a recorded
// attempt still runs. The rule (judge_liveness) and the locator ownership
// check (judge_locator_ownership) are pure functions over small input
// structs; the probes that read /proc or the file system are separate
// functions that fill those structs. Safe from any thread; no state, no
// threads. Error contract: probes never throw; a process that cannot be read
// counts as absent (process_start_token returns not_found), an unreadable
// /proc/<pid>/environ is skipped.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/proc_scan.hpp"
#include "runtime/core/proc_stat.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

enum class pid_liveness : uint8_t { alive, dead };

// Alive when the pid exists and, if expected_token is not empty, carries the
// same start token (a reused pid with another token is dead). A pid <= 0 is
// dead.
pid_liveness probe_pid(int pid, std::string_view expected_token,
                       const std::filesystem::path& proc_root = "/proc");

enum class group_liveness : uint8_t { alive, gone };

// Whether a process group still has a member that is not a zombie (a
// zombie nobody reaps, e.g. under a container init that does not reap,
// keeps kill(-pgid, 0) succeeding but runs nothing).
group_liveness probe_process_group(int pgid, const std::filesystem::path& proc_root = "/proc");

// --- locator ownership ------------------------------------------------------

struct locator_home {
  std::filesystem::path root;     // absolute, canonical workspace path
  std::string id;                 // first 16 hex of sha256 of the root
  std::filesystem::path runs_dir; // <state root>/runs, canonical
};

// What a locator says about where it belongs; empty strings mean "not
// recorded".
struct locator_claim {
  std::filesystem::path locator_path; // where the locator.json was found
  std::string workspace_id;
  std::string workspace_root;
};

enum class locator_ownership_kind : uint8_t { owned, foreign };

struct locator_ownership {
  locator_ownership_kind kind = locator_ownership_kind::foreign;
  std::string reason; // why it is foreign; empty when owned
};

// Pure: owned only when the locator path lies inside the runs folder
// (lexically, after normalisation) and the locator names the same workspace
// id and the same root. Anything else is foreign, with the reason.
locator_ownership judge_locator_ownership(const locator_claim& claim,
                                          const locator_home& workspace);

// Effectful wrapper: resolves symlinks in the locator path (weakly) before
// judging, so a link out of the runs folder is foreign.
locator_ownership probe_locator_ownership(locator_claim claim,
                                          const locator_home& workspace);

// --- the SPEC section 8 rule ------------------------------------------------

enum class evidence_presence : uint8_t { absent, present };

struct pid_evidence {
  evidence_presence recorded = evidence_presence::absent; // a pid was recorded
  pid_liveness state = pid_liveness::dead;                // probe result
};

struct liveness_evidence {
  std::string locator_status; // "running", "succeeded", "failed" or empty
  pid_evidence agent;
  pid_evidence dispatcher;
  std::string marker;             // recorded process marker, may be empty
  std::vector<int> marker_pids;   // processes carrying it
  evidence_presence native_session = evidence_presence::absent;
  evidence_presence stream_log = evidence_presence::absent;
  millis last_progress = 0;       // newest mtime of the native session / stream files
  millis now = 0;
};

enum class liveness_basis : uint8_t {
  not_running,        // the locator says the attempt ended
  agent_pid,          // agent pid alive with the same start token
  dispatcher_pid,     // dispatcher pid alive with the same start token
  marker,             // a process carries the marker
  marker_absent,      // a marker was recorded and nothing carries it
  agent_gone,         // an agent pid was recorded and it is dead
  files_without_pid,  // no pid evidence, but native session/stream files exist
  no_evidence,
};

enum class liveness_kind : uint8_t { live, stale };

struct liveness_verdict {
  liveness_kind kind = liveness_kind::stale;
  liveness_basis basis = liveness_basis::no_evidence;
  millis idle_ms = 0; // files_without_pid only: now - last_progress (>= 0)
  std::string reason; // one human line
};

// Pure SPEC section 8 rule, in order: an ended locator is stale; a live agent
// or dispatcher pid is live; a recorded marker decides by the marker scan; a
// recorded but dead agent pid is stale; otherwise existing native session or
// stream files keep it live with the idle time shown (no time-based
// recovery); nothing at all is stale.
liveness_verdict judge_liveness(const liveness_evidence& evidence);

// What the probes need from a locator.
struct liveness_probe_input {
  std::string locator_status;
  int agent_pid = 0;
  std::string agent_start_token;
  int dispatcher_pid = 0;
  std::string dispatcher_start_token;
  std::string marker;
  std::filesystem::path native_session_path; // file or folder of *.jsonl; may be empty
  std::filesystem::path stream_log_path;     // may be empty
};

// Runs the probes (/proc, file mtimes) and fills the evidence for
// judge_liveness.
liveness_evidence probe_liveness(const liveness_probe_input& input, const clock& clk,
                                 const std::filesystem::path& proc_root = "/proc");

} // namespace ad::runtime
