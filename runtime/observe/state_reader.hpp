#pragma once
// Reads a workspace's durable state while a dispatcher may be writing it,
// WITHOUT taking the lock and without writing anything: the real loader
// (durable_store::open) runs over a read-only file layer whose writes are
// no-ops, so a torn tail (an append in flight) is dropped in memory only and
// the files are never truncated or replaced. A compaction racing the read
// (new snapshot, old journal, or the reverse) is retried a few times. Also
// reads the lock file to name the dispatcher that owns the state. Used by
// `agent-dispatch status`. No threads.
// The state root comes from open_state_root (runtime/state/root.hpp), which
// has refused a damaged one; a fresh root reads as an empty state with
// `exists` false.
// Error contract: corruption()/invalid_argument() from the loader when the
// state stays unreadable after the retries. Never throws.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/core/status.hpp"
#include "runtime/state/model.hpp"
#include "runtime/state/root.hpp"

namespace ad::runtime {

struct state_lock_record {
  bool present = false;  // the lock file exists and holds an owner
  int64_t pid = 0;
  std::string start_token;
  int64_t started_at = 0;
  std::string version;
};

struct unlocked_state {
  bool exists = false;  // the state root holds a snapshot or a journal
  state_model state;
  uint64_t seq = 0;
  std::vector<std::string> warnings;  // e.g. a torn tail being written
  state_lock_record lock;
};

// `root` is the opened state root; `workspace_path`/`workspace_id` the
// identity the state must belong to (runtime/state/root.hpp
// identify_workspace).
result<unlocked_state> read_state_unlocked(const state_root& root,
                                           const std::string& workspace_path,
                                           const std::string& workspace_id);

// Parses the lock file text (docs/state-format.md); present=false when empty
// or not an owner record.
state_lock_record parse_lock_record(const std::string& text);

} // namespace ad::runtime
