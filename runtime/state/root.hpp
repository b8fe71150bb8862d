#pragma once
// Where a workspace's durable state lives and which workspace it belongs to.
// The state root is <git dir>/agent-dispatch when the workspace folder itself
// is a git checkout (a `.git` file with "gitdir: <path>" is followed, as git
// worktrees and submodules write it), else
// $XDG_STATE_HOME/agent-dispatch/<workspace id> with XDG_STATE_HOME defaulting
// to ~/.local/state. The workspace id is the first 16 hex digits of the
// sha256 of the absolute canonical workspace path. Only the workspace folder
// is checked for `.git`, never its parents, so two workspaces inside one
// repository never share a root. Environment is passed in (state_env), so
// these functions are pure apart from reading the workspace's `.git`.
// Errors: invalid_argument naming the path for an unreadable workspace or a
// malformed `.git` file; never throws.

#include <filesystem>
#include <string>

#include "runtime/core/status.hpp"

namespace ad::runtime {

struct workspace_identity {
  std::string path;  // absolute, canonical
  std::string id;    // first 16 hex of sha256(path)
  bool operator==(const workspace_identity&) const = default;
};

// Canonicalizes the workspace folder (it must exist) and derives its id.
result<workspace_identity> identify_workspace(const std::filesystem::path& workspace);

struct state_env {
  std::string xdg_state_home;  // empty when unset
  std::string home;
  // Reads XDG_STATE_HOME and HOME of this process.
  static state_env from_process();
};

result<std::filesystem::path> resolve_state_root(const workspace_identity& workspace,
                                                 const state_env& env);

// OK when `recorded` is `current`; otherwise invalid_argument naming both
// identities and `file`, and what to do. The CLI treats it as terminal.
status check_workspace_identity(const workspace_identity& recorded,
                                const workspace_identity& current,
                                const std::filesystem::path& file);

} // namespace ad::runtime
