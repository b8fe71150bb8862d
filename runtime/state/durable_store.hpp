#pragma once
// The durable state of one workspace on disk: a snapshot (state.json) plus an
// append-only journal of typed changes (journal.log), both in the state root;
// format in docs/state-format.md. open() loads the snapshot, replays the
// journal, drops a torn final record (a warning in load_report gives its byte
// count) and truncates it away; commit() is one group commit: every entry
// becomes one journal record, all of them go out in ONE append and ONE sync,
// and only then are they applied to the in-memory mirror, and the journal
// mark (journal.mark) is rewritten with the last seq, so that a journal later
// cut short, even at a record boundary, is refused on open. When the journal
// grows past a threshold it is compacted: the mirror is written as a new
// snapshot (write temp, fsync, rename, fsync dir) and the journal is replaced
// by an empty one.
//
// Threading: single owner (the serializer actor); no threads of its own.
// Errors: open() returns corruption() for a damaged snapshot or journal
// (message names the file, the offset and what to do), invalid_argument for a
// workspace identity mismatch (naming both identities), io_error when files
// cannot be read or written. After a failed append, sync or compaction the
// store is unhealthy: commit() returns that failure again without writing;
// recover by opening the store again. Never throws.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/status.hpp"
#include "runtime/state/change.hpp"
#include "runtime/state/file_layer.hpp"
#include "runtime/state/model.hpp"
#include "runtime/state/root.hpp"

namespace ad::runtime {

struct store_options {
  uint64_t compact_after_bytes = 8u << 20;  // journal size that triggers compaction
};

struct load_report {
  uint64_t snapshot_seq = 0;      // last entry folded into the snapshot
  uint64_t replayed_entries = 0;  // journal entries applied on top
  uint64_t dropped_tail_bytes = 0;
  std::vector<std::string> warnings;
};

struct store_stats {
  uint64_t commits = 0;  // group commits (one append + one sync each)
  uint64_t entries = 0;
  uint64_t changes = 0;
  uint64_t bytes_written = 0;  // journal appends and snapshot/journal replaces
  uint64_t syncs = 0;          // fsync-class calls, replaces counted as 2
  uint64_t compactions = 0;
};

// What one journal entry did once durable.
struct entry_result {
  uint64_t seq = 0;
  std::vector<status> outcomes;  // apply_change() status per change, in order
};

inline constexpr const char* snapshot_file_name = "state.json";
inline constexpr const char* journal_file_name = "journal.log";
inline constexpr const char* mark_file_name = "journal.mark";
inline constexpr int state_format_version = 1;

// The bytes of the snapshot and the journal in a state root (0 for one
// missing): what reading the state will parse.
std::uintmax_t stored_state_bytes(const std::filesystem::path& root);

class durable_store {
public:
  static result<std::unique_ptr<durable_store>> open(const std::filesystem::path& root,
                                                     const workspace_identity& workspace,
                                                     std::shared_ptr<state_file_layer> files,
                                                     store_options options = {});

  // The durable state: every committed entry applied, nothing else.
  const state_model& state() const { return state_; }
  // Moves the state out, for a reader done with the store (no copy of a
  // large state); the store must not be used after it.
  state_model release_state() { return std::move(state_); }
  uint64_t last_seq() const { return last_seq_; }
  const load_report& report() const { return report_; }
  const store_stats& stats() const { return stats_; }
  const std::filesystem::path& root() const { return root_; }
  // OK, or the failure that made the store refuse commits.
  status health() const { return failed_; }

  // One group commit of several entries (see the header comment).
  result<std::vector<entry_result>> commit(const std::vector<std::vector<state_change>>& entries);

  // Folds the journal into a new snapshot now.
  status compact();

private:
  durable_store() = default;
  status load();
  status start_new_journal();
  status check_mark(const std::optional<uint64_t>& mark) const;
  status write_mark(bool sync);

  std::filesystem::path root_;
  workspace_identity workspace_;
  std::shared_ptr<state_file_layer> files_;
  store_options options_;
  state_model state_;
  uint64_t last_seq_ = 0;
  uint64_t journal_bytes_ = 0;
  std::unique_ptr<append_file> journal_;
  std::unique_ptr<overwrite_file> mark_;
  load_report report_;
  store_stats stats_;
  status failed_;
};

} // namespace ad::runtime
