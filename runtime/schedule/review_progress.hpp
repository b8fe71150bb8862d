#pragma once
// The review no-progress limit (SPEC section 3): a review that changed nothing
// (same signature of the task's plan/review/log files and of its write-set
// files: path, size, mtime and content hash) counts toward a limit (policy
// budget, 10 by default) with a growing pause between rounds; at the limit the
// task is blocked. The signature is computed from a snapshot value, so the
// counter logic is pure; snapshot_review_progress() reads one from disk.
// Errors: io_error naming the path when an existing file cannot be hashed;
// never throws.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

enum class progress_entry_kind : uint8_t { file, missing, other };

struct progress_entry {
  std::string path; // task-folder files by name, write-set files by canonical path
  progress_entry_kind kind = progress_entry_kind::file;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  std::string sha256; // files only
};

struct progress_snapshot {
  bool folder_missing = false;        // the task folder moved (archived)
  std::vector<progress_entry> task_files; // PLAN-*, CODE_REVIEW-*, *.log, by name
  std::vector<progress_entry> write_set;  // in write-set order (sorted)
};

// Lower-case hex SHA-256 over the snapshot; "moved" when the folder is gone.
// Equal snapshots give equal signatures regardless of entry order.
std::string progress_signature(const progress_snapshot& snap);

// Reads the snapshot of task_dir and the given write-set paths.
result<progress_snapshot> snapshot_review_progress(const std::filesystem::path& task_dir,
                                                   const std::vector<std::string>& write_set);

struct no_progress_policy {
  int limit = 10;          // unchanged reviews before the task blocks
  millis pause_step = 5000; // pause after the n-th unchanged review: n * step ...
  millis pause_cap = 30000; // ... at most this
};

// Before a review starts: the block reason when the persisted counter has
// already reached the limit.
std::optional<std::string> no_progress_exhausted(int prior_count, const no_progress_policy& policy);

enum class progress_action : uint8_t {
  progressed, // something changed: the counter resets to 0
  pause,      // unchanged: wait `pause`, then continue
  block,      // unchanged and the limit is reached
};

struct progress_step {
  progress_action action = progress_action::progressed;
  int count = 0;    // the counter to persist
  millis pause = 0; // for pause
  std::string reason; // one line: warning for pause, block reason for block
};

progress_step after_review(int prior_count, const std::string& before_signature,
                           const std::string& after_signature, const no_progress_policy& policy);

} // namespace ad::runtime
