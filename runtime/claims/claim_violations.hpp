#pragma once
// Who wrote outside their claim: the pure judgement over the writes seen in
// a window of time, the attempts that ran in it and the claims held. Inputs
// are values (paths canonical absolute, times in ms since the epoch); no
// I/O, no state, no threads, never throws, never fails.
//
// Rules, per changed path:
// - A write fanotify tied to an attempt (by its marker) is that attempt's:
//   a violation when the path is outside its write set (basis "fanotify").
//   A marker naming no attempt of the window is reported unattributed.
// - A write with no known writer (snapshot diff, or a fanotify event whose
//   process could not be traced) is weighed against the candidates: the
//   attempts of the window whose [started - slack, ended + slack] holds the
//   change time, or all of them when the time is unknown or fits none.
//   One candidate: it is the writer ("elimination"), a violation when the
//   path is outside its write set. Several: a path inside a candidate's
//   write set is theirs (no violation); a path inside none is a violation
//   naming every candidate ("candidates"). No attempt at all: unattributed.
// - A snapshot change of a path fanotify already tied to an attempt is that
//   attempt's (the diff adds nothing).
// - A path inside the writer's own write set is never a violation.
// other_task names a task (not the writer's) whose claim covers the path.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"

namespace ad::runtime {

struct attempt_window {
  std::string task;
  std::string attempt;                // attempt identity
  std::string marker;                 // its AGENT_DISPATCH_EXECUTION_ID value
  std::vector<std::string> write_set; // canonical absolute paths
  millis started = 0;
  millis ended = 0;                   // 0: still running at the window's end
};

enum class writer_source : uint8_t { fanotify, snapshot };

struct observed_change {
  std::string path;
  writer_source source = writer_source::snapshot;
  std::string marker; // fanotify: the writer's marker; empty when unknown
  millis at = 0;      // when it happened; 0 when unknown
};

// task -> its claimed write set
using claim_map = std::map<std::string, std::vector<std::string>>;

enum class attribution_basis : uint8_t { fanotify, elimination, candidates };
std::string_view to_string(attribution_basis basis);

struct claim_violation {
  std::string task;    // the writer's task; empty for basis candidates
  std::string attempt; // the writer's attempt; empty for basis candidates
  std::string path;
  std::string other_task; // whose claim covers the path; may be empty
  attribution_basis attribution = attribution_basis::elimination;
  std::vector<std::string> candidates; // attempt ids, for basis candidates
  bool operator==(const claim_violation&) const = default;
};

struct unattributed_change {
  std::string path;
  std::string reason;
  bool operator==(const unattributed_change&) const = default;
};

struct violation_report {
  std::vector<claim_violation> violations;     // sorted by path, then attempt
  std::vector<unattributed_change> unattributed; // sorted by path
};

struct judge_options {
  // Tolerance around an attempt's start and end when a change time is
  // compared with them (file system timestamps are coarse).
  millis slack = 2000;
};

violation_report judge_claim_writes(const std::vector<observed_change>& changes,
                                    const std::vector<attempt_window>& attempts,
                                    const claim_map& claims, const judge_options& options = {});

} // namespace ad::runtime
