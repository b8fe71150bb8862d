#pragma once
// Write-set snapshots around one attempt (SPEC section 7, tactical
// escalation): the task actor records the task's write set (existence, size,
// mtime, sha256) before an attempt starts and again after it ends, each as a
// record_write_set change keyed by the attempt identity, so the supervisor's
// intervention context can tell which attempt created or modified which file
// and the history survives a restart. The supervisor request of a failed
// attempt also carries the write set as it is now. The snapshot itself stats
// and hashes real files (runtime/policy/tactical take_write_set_snapshot);
// building the changes is pure. Never throws; an unreadable file is recorded
// as existing with an empty hash.

#include <string>
#include <vector>

#include "runtime/state/change.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

// The record_write_set change of one phase of one attempt, from files taken
// with take_write_set_snapshot.
state_change write_set_change(const std::string& task, const std::string& attempt_id,
                              snapshot_phase phase, std::vector<file_snapshot> files);

// Takes the snapshot of paths now and wraps it as write_set_change.
state_change snapshot_write_set(const std::string& task, const std::string& attempt_id,
                                snapshot_phase phase, const std::vector<std::string>& paths);

// The snapshot of paths now (an alias of take_write_set_snapshot kept here so
// callers of the run loop need only this header).
std::vector<file_snapshot> current_write_set(const std::vector<std::string>& paths);

} // namespace ad::runtime
