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
// open_state_root is the one door to the state root for every command that
// reads or writes durable state (run, status, doctor, a future serve): it
// tells a new workspace from one whose state is damaged, so no reader shows a
// damaged state as an empty one.
// Errors: invalid_argument naming the path for an unreadable workspace or a
// malformed `.git` file; corruption (or io_error) naming the path and the
// fix for a damaged state root (open_state_root); never throws.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

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

// --- opening the state root ------------------------------------------------

// What every damaged-root error tells the user to do.
inline constexpr std::string_view state_root_fix =
  "Restore the state root from a backup, or move it aside to start over (durable state is then "
  "lost).";

enum class state_root_kind : uint8_t {
  fresh,    // no durable state yet: a new workspace (nothing, or only a lock and logs)
  existing, // a journal (and maybe a snapshot) to read
};

struct state_root {
  std::filesystem::path path; // as resolve_state_root names it
  state_root_kind kind = state_root_kind::fresh;
};

// Resolves the workspace's state root (resolve_state_root) and checks it
// (check_state_root).
result<state_root> open_state_root(const workspace_identity& workspace, const state_env& env);

// Checks a state root before anything reads it. fresh when it does not
// exist or holds no journal and nothing that shows one existed. Errors,
// each naming the path and state_root_fix: the root is not a folder (a
// file, a FIFO, a link to nothing), cannot be read, or resolves into /proc,
// /sys or another kernel file system; journal.log or state.json is a link
// to nothing, not a regular file or unreadable; journal.log is missing
// while check_missing_journal finds that one existed.
result<state_root_kind> check_state_root(const std::filesystem::path& root);

// With journal.log missing: ok when nothing shows that the root ever held
// durable state; corruption when journal.log is a link to nothing, or
// beside it are a snapshot (state.json), a journal mark that records an
// entry (or cannot be read), or attempts of earlier runs (runs/ not empty).
// durable_store::open applies the same rule.
status check_missing_journal(const std::filesystem::path& root);

// OK when `recorded` is `current`; otherwise invalid_argument naming both
// identities and `file`, and what to do. The CLI treats it as terminal.
status check_workspace_identity(const workspace_identity& recorded,
                                const workspace_identity& current,
                                const std::filesystem::path& file);

} // namespace ad::runtime
