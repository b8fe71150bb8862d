#pragma once
// A stat-only picture of a workspace, and the difference between two of them:
// the fallback that notices writes when fanotify is not available, and the
// check that catches what a watcher missed. take_snapshot() walks the tree
// below a claim_scope's root without following symlinks, recording every
// regular file and symlink (size, mtime and ctime in ns, inode, type) and
// pruning the scope's excluded prefixes; other file types are ignored. It is
// bounded: more files than limits.max_files or folders nested deeper than
// limits.max_depth end the walk with invalid_argument naming the cap and the
// path where it was hit. A folder that cannot be opened or read is listed in
// `unreadable` and the walk goes on; a file that vanishes while it is read is
// skipped. io_error only when the root itself cannot be opened. Synchronous,
// no threads, no state between calls; never throws.
//
// diff() is pure. A change below a folder unreadable in either snapshot is
// not reported (it cannot be seen): the folder is listed instead. A rename
// shows as the old path deleted and the new one created. A rewrite that
// keeps size, inode and both timestamps (within one timestamp tick of the
// file system) is invisible here; fanotify sees it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/claims/claim_scope.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

enum class entry_kind : uint8_t { regular, symlink };

struct file_stamp {
  int64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t inode = 0;
  entry_kind kind = entry_kind::regular;
  bool operator==(const file_stamp&) const = default;
};

struct snapshot_entry {
  std::string path; // canonical absolute
  file_stamp stamp;
};

struct unreadable_folder {
  std::string path;
  std::string reason;
  bool operator==(const unreadable_folder&) const = default;
};

struct workspace_snapshot {
  std::string root;
  std::vector<snapshot_entry> entries; // sorted by path
  std::vector<unreadable_folder> unreadable;
  std::size_t folders = 0;             // folders walked
};

struct snapshot_limits {
  std::size_t max_files = 1'000'000;
  int max_depth = 64; // the root's children are at depth 1
};

result<workspace_snapshot> take_snapshot(const claim_scope& scope,
                                         const snapshot_limits& limits = {});

enum class change_kind : uint8_t { created, modified, deleted, type_changed };
std::string_view to_string(change_kind kind);

struct path_change {
  std::string path; // canonical absolute
  change_kind kind = change_kind::modified;
  millis at = 0;    // the new ctime (ms) for created/modified/type_changed; 0 for deleted
  bool operator==(const path_change&) const = default;
};

struct snapshot_diff {
  std::vector<path_change> changes;      // sorted by path
  std::vector<std::string> unreadable;   // folders unreadable in either snapshot, sorted
};

snapshot_diff diff(const workspace_snapshot& before, const workspace_snapshot& after);

} // namespace ad::runtime
