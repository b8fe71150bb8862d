#pragma once
// Which paths of a workspace the write-claim checks look at. A claim_scope
// holds the canonical workspace root and the prefixes excluded below it:
// `.git` (and, when `.git` is a file, the folder its "gitdir:" line names and
// that folder's commondir), the dispatcher's state root, `agent-task/`
// (agents write their own task folders and the review moves them to the
// archive) and the caller's exempt prefixes (the agent CLIs' own session
// folders such as `.codex/`, `.claude/`, `.pi/`). make() reads the file
// system once (canonical root, the `.git` file); afterwards classify() is
// pure string work on canonical absolute paths, safe from any thread.
// Errors: make() returns invalid_argument naming the path when the workspace
// is not an existing folder; an unreadable or malformed `.git` file only
// leaves its target out. Never throws.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"

namespace ad::runtime {

struct claim_scope_options {
  std::filesystem::path workspace;
  std::filesystem::path state_root;          // empty: none
  std::vector<std::filesystem::path> exempt; // absolute, or relative to the workspace
};

enum class path_scope : uint8_t {
  outside,  // not below the workspace root
  excluded, // below the root, under an excluded prefix (or the root itself)
  watched,  // a path whose writes are checked against claims
};

class claim_scope {
public:
  claim_scope() = default;
  static result<claim_scope> make(const claim_scope_options& options);

  // The canonical workspace root, without a trailing '/'.
  const std::string& root() const { return root_; }
  // `path` must be absolute and canonical (as the walk and /proc/self/fd give
  // it); it is compared component-wise, never resolved.
  path_scope classify(std::string_view path) const;
  // True when `path` lies at or below an excluded prefix (whether inside the
  // root or not).
  bool is_excluded(std::string_view path) const;
  // True when an excluded prefix lies strictly below `folder` (a walk need
  // not check the entries of other folders).
  bool excludes_below(std::string_view folder) const;
  // The excluded prefixes, sorted, each both as written and as resolved.
  const std::vector<std::string>& excluded() const { return excluded_; }

private:
  std::string root_;
  std::vector<std::string> excluded_;
};

// True when `path` equals `prefix` or lies below it ('/' boundary).
bool path_at_or_below(std::string_view path, std::string_view prefix);

} // namespace ad::runtime
