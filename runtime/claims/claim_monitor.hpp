#pragma once
// The bookkeeping of a run's claim watcher as plain values: the attempts
// that run (or ran recently enough to matter), what a window of observed
// writes is judged against, which verdicts were already reported, and which
// attempts still hold admission back with a violation. The watcher actor
// feeds it what it hears (an attempt began or ended, events were drained, an
// attempt's snapshots differ) and carries out what judge() returns; every
// decision is judge_claim_writes()'s (claim_violations.hpp). No I/O, no
// threads, single owner; never throws, never fails.
//
// Windows:
// - fanotify (from_events): the changes drained at `now` against the
//   attempts running then or ended at most `slack` before, so an agent's
//   last writes drained right after it exited stay its own.
// - snapshots (from_diff): one attempt's diff (its start to its end) against
//   that attempt and every attempt whose run overlapped it. Overlapping
//   windows see the same change; a change (path and change time; for a
//   delete, which has no time, the path within overlapping windows) is
//   judged in the first window that sees it only.
// A verdict already reported (same attempt, or same candidates, and path)
// is not returned again.

#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/claims/claim_violations.hpp"
#include "runtime/claims/workspace_snapshot.hpp"
#include "runtime/claims/write_watch.hpp"
#include "runtime/schedule/admission.hpp"

namespace ad::runtime {

struct watched_attempt {
  std::string task;
  std::string identity;               // <safe task>__p<plan>__<role>__a<NN>
  std::string marker;                 // AGENT_DISPATCH_EXECUTION_ID value
  std::vector<std::string> write_set; // canonical absolute paths
  millis started = 0;
  std::string locator;                // its locator.json, "" when not known
};

// Changes to judge, with the attempts they are judged against.
struct pending_judgement {
  std::vector<observed_change> changes;
  std::vector<attempt_window> attempts;
};

struct claim_monitor_options {
  millis slack = 2000;                 // as judge_options::slack
  std::size_t max_held_events = 16384; // writes of not yet known markers
  // fanotify: the writes of a file created in the window are judged once it
  // has lived `settle` ms, and only if it still exists then (path_exists):
  // a temporary file written and renamed into place, or removed, was never
  // a lasting write outside the claim. 0, or no path_exists: judged at once.
  // Keep it under `slack`, so the writer is still in the window then.
  millis settle = 0;
  std::function<bool(const std::string&)> path_exists;
};

struct watch_end {
  bool known = false;             // the attempt had begun here
  bool held_admission = false;    // a violation of it held other tasks back
};

class claim_monitor {
public:
  explicit claim_monitor(claim_monitor_options options = {}) : options_(options) {}

  // A second begin of the same identity replaces the first.
  void begin(const watched_attempt& a);
  watch_end end(const std::string& identity, millis at);

  bool running(const std::string& identity) const;
  bool any_running() const;
  const watched_attempt* find(const std::string& identity) const;
  // Every attempt still kept (running or ended recently), by identity.
  const std::map<std::string, watched_attempt>& attempts() const { return attempts_; }

  // A write whose marker names no attempt of the window is held back for
  // `slack` instead (the agent's begin may arrive after its first writes);
  // at most max_held_events are held.
  // Writes of files created in the window wait `settle` ms first (see
  // claim_monitor_options); call it with no events to judge those whose
  // time has come.
  pending_judgement from_events(const std::vector<write_event>& events, millis now);
  // Writes of created files still waiting for their settle time.
  bool settling() const { return !settling_.empty(); }
  // Whether a write drained at or before `t` still waits for its settle
  // time (so an attempt that ended at `t` may yet be found writing outside
  // its claim).
  bool settling_until(millis t) const;
  // At an attempt's begin, the events queued until then: the agent may have
  // written before its begin arrived, so the writes its own marker made
  // (queued now or held back earlier) are judged with it; every other write
  // without it (its time is unknown and may lie before the agent started).
  // Begins the attempt; the first judgement is of the others, the second
  // of its own.
  std::vector<pending_judgement> begin_after(const watched_attempt& a,
                                             const std::vector<write_event>& queued, millis now);
  pending_judgement from_diff(const std::string& identity, const snapshot_diff& diff);

  // The verdict on a window, without the violations reported before (which
  // are remembered from now on).
  std::vector<claim_violation> judge(const pending_judgement& window, const claim_map& claims);

  // What holds admission back after `v`: the writer when it still runs, or
  // each candidate that still runs. Those attempts report held_admission
  // when they end.
  std::vector<live_violation> live_after(const claim_violation& v);

  // Forgets ended attempts no later window can need (ended more than slack
  // before `now` and before every running attempt started) and held-back
  // writes older than the slack.
  void prune(millis now);

private:
  attempt_window window_of(const watched_attempt& a) const;

  claim_monitor_options options_;
  std::map<std::string, watched_attempt> attempts_;
  std::map<std::string, millis> ended_;       // identity -> end time
  std::set<std::string> reported_;            // verdict keys
  std::set<std::pair<std::string, millis>> judged_changes_; // snapshot (path, change time)
  std::map<std::string, millis> judged_deletes_; // path -> end of the window that judged it
  std::set<std::string> holding_;             // attempts with live violations
  std::vector<std::pair<millis, write_event>> held_; // (drained at, write) of unknown markers
  struct settling_path {
    millis since = 0; // drained at, first
    std::vector<write_event> events;
  };
  std::map<std::string, settling_path> settling_; // by path
};

} // namespace ad::runtime
