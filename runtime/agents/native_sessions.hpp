#pragma once
// Where each agent CLI keeps its own ("native") session, as functions of
// their inputs (home or config folder, ids, a folder listing) so they can be
// tested without the CLIs:
//   claude  <CLAUDE_CONFIG_DIR, else <home>/.claude>/projects/<cwd with every
//           non-alphanumeric byte replaced by '-'; past 200 bytes the first
//           200 and a "-<hash>" suffix>/<session id>.jsonl
//   codex   <CODEX_HOME, else <home>/.codex>/sessions/YYYY/MM/DD/
//           rollout-<local stamp>-<thread id>.jsonl
//   pi      the session folder the attempt gave it: <stamp>_<session id>.jsonl
//           named by pi itself (the id comes from its `session` event), or
//           the newest *.jsonl there
//   agy     <home>/.gemini/antigravity-cli/conversations/<id>.db, the newest
//           one created or changed while the attempt ran
// Only list_files touches the file system (one folder, not recursive); it
// returns an empty list for a missing folder and never throws.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"

namespace ad::runtime {

struct file_entry {
  std::filesystem::path path;
  int64_t mtime_ns = 0;
};

// The files directly inside dir whose names end with suffix ("" for all).
std::vector<file_entry> list_files(const std::filesystem::path& dir, std::string_view suffix);

// "/home/u/my_repo" → "-home-u-my-repo" (the full name, before claude cuts
// a long one).
std::string claude_project_dir_name(const std::filesystem::path& cwd);
// claude's folder name length limit; a longer name keeps this many bytes.
inline constexpr size_t claude_project_name_limit = 200;
// The folder claude 2.1 uses: the full name when it fits, else its first
// 200 bytes, '-' and the base-36 absolute value of the path's 32-bit
// Java-style string hash.
std::string claude_project_folder(const std::filesystem::path& cwd);
// <config_dir>/projects when config_dir (CLAUDE_CONFIG_DIR) is set, else
// <home>/.claude/projects.
std::filesystem::path claude_projects_root(const std::filesystem::path& home,
                                           const std::filesystem::path& config_dir);
// Where the transcript is expected (claude_project_folder).
std::filesystem::path claude_session_path(const std::filesystem::path& projects_root,
                                          const std::filesystem::path& workspace,
                                          std::string_view session_id);
// The transcript that exists: the expected path, else, for a long name, in
// any folder whose name is the cut name followed by "-" (a release that
// hashes differently). Lists projects_root only then.
std::optional<std::filesystem::path> find_claude_session(const std::filesystem::path& projects_root,
                                                         const std::filesystem::path& workspace,
                                                         std::string_view session_id);

// <codex_home>/sessions; codex_home is CODEX_HOME, else <home>/.codex.
std::filesystem::path codex_sessions_root(const std::filesystem::path& codex_home);
// The day folders (UTC dates from one day before `from` to one day after
// `to`, so a local-time folder name is covered) where codex may have written
// a rollout for an attempt that ran between from and to.
std::vector<std::filesystem::path> codex_day_dirs(const std::filesystem::path& codex_home,
                                                  millis from, millis to);
// The rollout file for thread_id among files (rollout-*-<thread id>.jsonl).
std::optional<std::filesystem::path> find_codex_rollout(const std::vector<file_entry>& files,
                                                        std::string_view thread_id);

// The pi session file naming session_id (*<session id>*.jsonl) among files.
std::optional<std::filesystem::path> find_pi_session(const std::vector<file_entry>& files,
                                                     std::string_view session_id);
// The most recently changed *.jsonl among files (resuming a pi session dir).
std::optional<std::filesystem::path> newest_jsonl(const std::vector<file_entry>& files);

std::filesystem::path agy_conversations_dir(const std::filesystem::path& home);
// Among `after`, the *.db conversation that is new or changed since `before`
// with the greatest modification time.
std::optional<std::filesystem::path> newest_changed_agy_conversation(
  const std::vector<file_entry>& before, const std::vector<file_entry>& after);

} // namespace ad::runtime
