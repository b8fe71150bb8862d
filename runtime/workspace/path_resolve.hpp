#pragma once
// Resolves a path the way realpath(3) does without requiring it to exist:
// every existing component is followed through symlinks (at most 40 hops, so a
// symlink loop is an error, never a hang), `.` and `..` are applied after the
// prefix is resolved, and missing trailing components are kept as written. A
// dangling symlink is followed to where it points, so a link that leads out of
// the workspace is seen as outside. Pure apart from lstat/readlink; no state.
// Errors: invalid_argument for a symlink loop (naming the path), io_error when
// the file system refuses.

#include <filesystem>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/core/status.hpp"

namespace ad::runtime {

// `path` relative paths are taken relative to `base`, which must itself be
// absolute and resolved (realpath's answer, or this function's): its
// components are not followed again.
result<std::filesystem::path> resolve_path(const std::filesystem::path& path,
                                           const std::filesystem::path& base);

// What the walks of one moment found at the components they looked at
// (anything but a symbolic link: a folder, a file, nothing), so that paths
// resolved together look at the folders they share once: a plan's write
// set, or every plan a scan reads (their files share the workspace's
// folders). For one batch of paths: it never learns that a component
// changed. Safe to share between threads.
class path_walk_memo {
public:
  // The lstat answer for `path` as 0 or an errno, with its mode.
  int lstat(const std::string& path, unsigned& mode);

private:
  struct answer {
    int error = 0;
    unsigned mode = 0;
  };
  std::mutex mutex_;
  std::unordered_map<std::string, answer> answers_;
};

// resolve_path, and what lies at the answer: its type after symlinks, or
// not_found; none when the file system refused to say. The walk's own lstat
// calls answer it where they can, so it mostly costs nothing more; with a
// memo, what an earlier walk of the batch found is not looked at again.
struct typed_path {
  std::filesystem::path path;
  std::filesystem::file_type type = std::filesystem::file_type::none;
};
result<typed_path> resolve_typed_path(const std::filesystem::path& path,
                                      const std::filesystem::path& base,
                                      path_walk_memo* memo = nullptr);

// p as realpath(3) resolves it (fs::canonical), or p itself when it does not
// resolve (missing, unreadable).
std::filesystem::path canonical_or_same(const std::filesystem::path& p);

// True when `path` equals `root` or lies below it (both already resolved).
bool is_within(const std::filesystem::path& path, const std::filesystem::path& root);

} // namespace ad::runtime
