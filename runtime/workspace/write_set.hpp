#pragma once
// The Modified Files Summary of a PLAN and the write set it claims (SPEC
// section 2). A PLAN holds exactly one `## Modified Files Summary` section (the
// legacy Korean heading `## 수정 파일 요약` counts as the same section) with a
// markdown table; the first cell of each data row names one or more paths in
// backticks (a trailing `:line[:col]` is dropped). Each rejected claim gets its
// own diagnostic naming the PLAN line and the claim; a valid claim becomes a
// canonical absolute path inside the workspace. Pure apart from reading the
// PLAN (capped) and lstat/readlink while resolving; never throws, never
// prints. Read failures become diagnostics too.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/workspace/path_resolve.hpp"

namespace ad::runtime {

// What was wrong with a claim or with the section.
enum class write_set_problem : uint8_t {
  unreadable,        // the PLAN cannot be read (missing, too large, I/O error)
  no_section,        // no Modified Files Summary section
  several_sections,  // more than one
  no_path,           // a row whose first cell has no backticked path
  empty_path,
  placeholder,       // <x>, {x}, ..., tbd, todo, placeholder
  url,
  backslash,
  glob,              // * ? [ ]
  directory,         // trailing '/' or an existing directory
  unresolvable,      // symlink loop or file-system error while resolving
  outside_workspace, // after resolving .. and symlinks
  workspace_root,
  protected_path,    // .git/, agent-task/ or the workspace policy: never an agent's to write
  not_regular,       // an existing FIFO, socket or device
  no_valid_path,     // nothing valid was claimed
};

std::string_view to_string(write_set_problem problem);

struct write_set_diagnostic {
  write_set_problem problem = write_set_problem::no_section;
  std::size_t line = 0;  // 1-based line in the PLAN; 0 when not about a row
  std::string claim;     // the path as written (after dropping :line:col)
  std::string message;   // one human sentence, naming the row and the claim
};

struct write_set_report {
  std::vector<std::string> paths; // canonical absolute paths, sorted, unique
  std::vector<write_set_diagnostic> diagnostics;

  // A write set a scheduler may claim: at least one path and no diagnostic.
  bool valid() const { return diagnostics.empty() && !paths.empty(); }
};

// Reads the PLAN file (at most max_plan_bytes) and inspects it. Messages name
// the PLAN by `plan_label`, or by its file name when the label is empty.
inline constexpr std::size_t max_plan_bytes = 4u << 20;
write_set_report inspect_write_set_file(const std::filesystem::path& plan,
                                        const std::filesystem::path& workspace,
                                        std::string_view plan_label = {});

// Inspects PLAN text; `workspace` is resolved first. `plan_label` names the
// PLAN in messages ("PLAN-local-G05.md").
write_set_report inspect_write_set(std::string_view plan_text,
                                   const std::filesystem::path& workspace,
                                   std::string_view plan_label);
// The same with `workspace` resolved already (resolve_path), as a
// workspace scan holds it: nothing is looked up for it again. `walks`: the
// memo of the paths' walks, shared by the plans a scan reads at one moment
// (a memo of this plan's own when null).
write_set_report inspect_write_set_in(std::string_view plan_text,
                                      const std::filesystem::path& resolved_workspace,
                                      std::string_view plan_label,
                                      path_walk_memo* walks = nullptr);

// True for a claim the placeholder rule rejects: <, >, {, }, "...", or a
// tbd/todo/placeholder word bounded by start/end or one of / _ . -
// (case-insensitive).
bool is_placeholder_path(std::string_view claim);

} // namespace ad::runtime
