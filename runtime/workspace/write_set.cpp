#include "runtime/workspace/write_set.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <set>

#include "runtime/core/files.hpp"
#include "runtime/workspace/markdown.hpp"
#include "runtime/workspace/path_resolve.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

bool is_boundary(char c) { return c == '/' || c == '_' || c == '.' || c == '-'; }

bool is_header_cell(std::string_view cell) {
  static constexpr std::array<std::string_view, 6> names = {"file", "files", "path",
                                                            "paths", "파일", "경로"};
  auto lower = to_lower_ascii(cell);
  return std::find(names.begin(), names.end(), lower) != names.end();
}

bool is_separator_cell(std::string_view cell) {
  return std::all_of(cell.begin(), cell.end(), [](char c) { return c == ':' || c == '-'; });
}

std::vector<std::string_view> split_cells(std::string_view line) {
  line = trim(line);
  while (!line.empty() && line.front() == '|')
    line.remove_prefix(1);
  while (!line.empty() && line.back() == '|')
    line.remove_suffix(1);
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  while (true) {
    auto bar = line.find('|', start);
    cells.push_back(trim(line.substr(start, bar == std::string_view::npos ? bar : bar - start)));
    if (bar == std::string_view::npos)
      break;
    start = bar + 1;
  }
  return cells;
}

std::vector<std::string_view> backticked(std::string_view cell) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (true) {
    auto open = cell.find('`', at);
    if (open == std::string_view::npos)
      break;
    auto close = cell.find('`', open + 1);
    if (close == std::string_view::npos)
      break;
    if (close == open + 1) { // "``" is not a claim; the second tick may open one
      at = open + 1;
      continue;
    }
    out.push_back(cell.substr(open + 1, close - open - 1));
    at = close + 1;
  }
  return out;
}

// Drops a trailing ":<digits>" or ":<digits>:<digits>".
std::string_view drop_line_suffix(std::string_view s) {
  auto drop_number = [](std::string_view v) -> std::optional<std::string_view> {
    std::size_t n = 0;
    while (n < v.size() && v[v.size() - 1 - n] >= '0' && v[v.size() - 1 - n] <= '9')
      ++n;
    if (n == 0 || n == v.size() || v[v.size() - 1 - n] != ':')
      return std::nullopt;
    return v.substr(0, v.size() - 1 - n);
  };
  auto once = drop_number(s);
  if (!once)
    return s;
  if (auto twice = drop_number(*once))
    return *twice;
  return *once;
}

std::string row_message(std::string_view plan_label, std::size_t line, std::string_view what) {
  return std::string(plan_label) + ":" + std::to_string(line) + ": " + std::string(what);
}

} // namespace

std::string_view to_string(write_set_problem problem) {
  switch (problem) {
  case write_set_problem::unreadable: return "unreadable";
  case write_set_problem::no_section: return "no-section";
  case write_set_problem::several_sections: return "several-sections";
  case write_set_problem::no_path: return "no-path";
  case write_set_problem::empty_path: return "empty-path";
  case write_set_problem::placeholder: return "placeholder";
  case write_set_problem::url: return "url";
  case write_set_problem::backslash: return "backslash";
  case write_set_problem::glob: return "glob";
  case write_set_problem::directory: return "directory";
  case write_set_problem::unresolvable: return "unresolvable";
  case write_set_problem::outside_workspace: return "outside-workspace";
  case write_set_problem::workspace_root: return "workspace-root";
  case write_set_problem::protected_path: return "protected-path";
  case write_set_problem::not_regular: return "not-regular";
  case write_set_problem::no_valid_path: return "no-valid-path";
  }
  return "unknown";
}

namespace {

// Why an agent may never be given this workspace path (relative), or "".
std::string protected_reason(const fs::path& relative) {
  auto first = relative.begin() == relative.end() ? std::string() : relative.begin()->string();
  if (first == ".git")
    return "inside .git (a hook or config written there runs code at the next git command)";
  if (first == "agent-task")
    return "inside agent-task/ (the dispatcher's plans, reviews and control files)";
  if (relative == "agent-dispatch.json")
    return "the workspace policy (agent-dispatch.json) decides how agents run";
  return {};
}

} // namespace

bool is_placeholder_path(std::string_view claim) {
  if (claim.find_first_of("<>{}") != std::string_view::npos ||
      claim.find("...") != std::string_view::npos)
    return true;
  auto lower = to_lower_ascii(claim);
  for (std::string_view word : {"tbd", "todo", "placeholder"}) {
    for (auto at = lower.find(word); at != std::string::npos; at = lower.find(word, at + 1)) {
      bool left = at == 0 || is_boundary(lower[at - 1]);
      auto end = at + word.size();
      bool right = end == lower.size() || is_boundary(lower[end]);
      if (left && right)
        return true;
    }
  }
  return false;
}

write_set_report inspect_write_set_file(const fs::path& plan, const fs::path& workspace,
                                        std::string_view plan_label) {
  auto text = read_file(plan, max_plan_bytes);
  if (!text.is_ok()) {
    write_set_report report;
    report.diagnostics.push_back({write_set_problem::unreadable, 0, {},
                                  "cannot read the PLAN: " + text.error().message()});
    return report;
  }
  return inspect_write_set(*text, workspace,
                           plan_label.empty() ? plan.filename().string() : std::string(plan_label));
}

namespace {

write_set_report inspect_with(std::string_view plan_text,
                              const result<fs::path>& workspace_resolved,
                              std::string_view plan_label, path_walk_memo* shared_walks) {
  write_set_report report;
  auto add = [&](write_set_problem p, std::size_t line, std::string_view claim,
                 std::string message) {
    report.diagnostics.push_back({p, line, std::string(claim), std::move(message)});
  };

  auto sections = find_sections(plan_text, {"Modified Files Summary", "수정 파일 요약"});
  if (sections.empty()) {
    add(write_set_problem::no_section, 0, {},
        std::string(plan_label) + ": no '## Modified Files Summary' section");
    return report;
  }
  if (sections.size() > 1) {
    std::string lines;
    for (const auto& s : sections)
      lines += (lines.empty() ? "" : ", ") + std::to_string(s.heading_line);
    add(write_set_problem::several_sections, 0, {},
        std::string(plan_label) + ": " + std::to_string(sections.size()) +
            " Modified Files Summary sections (lines " + lines + "); exactly one is allowed");
    return report;
  }

  if (!workspace_resolved.is_ok()) {
    add(write_set_problem::unresolvable, 0, {},
        "cannot resolve the workspace: " + workspace_resolved.error().message());
    return report;
  }
  const fs::path& workspace = *workspace_resolved;

  std::set<std::string> paths;
  path_walk_memo own_walks; // a plan's files mostly share their folders
  path_walk_memo& walks = shared_walks ? *shared_walks : own_walks;
  for (const auto& row : sections.front().body) {
    auto line = trim(row.text);
    if (!line.starts_with("|"))
      continue;
    auto cells = split_cells(line);
    if (std::all_of(cells.begin(), cells.end(), is_separator_cell))
      continue;
    if (is_header_cell(cells.front()))
      continue;
    auto claims = backticked(cells.front());
    if (claims.empty()) {
      add(write_set_problem::no_path, row.number, cells.front(),
          row_message(plan_label, row.number,
                      "row has no backticked path in its first cell: '" +
                          std::string(cells.front()) + "'"));
      continue;
    }
    for (auto raw : claims) {
      auto claim = drop_line_suffix(trim(raw));
      auto reject = [&](write_set_problem p, std::string_view why) {
        add(p, row.number, claim,
            row_message(plan_label, row.number, std::string(why) + ": '" + std::string(claim) + "'"));
      };
      if (claim.empty()) {
        add(write_set_problem::empty_path, row.number, claim,
            row_message(plan_label, row.number, "empty path claim"));
        continue;
      }
      if (is_placeholder_path(claim)) {
        reject(write_set_problem::placeholder, "placeholder path");
        continue;
      }
      if (claim.starts_with("http://") || claim.starts_with("https://")) {
        reject(write_set_problem::url, "URL instead of a workspace path");
        continue;
      }
      if (claim.find('\\') != std::string_view::npos) {
        reject(write_set_problem::backslash, "backslash in path");
        continue;
      }
      if (claim.find_first_of("*?[]") != std::string_view::npos) {
        reject(write_set_problem::glob, "glob pattern instead of a file");
        continue;
      }
      if (claim.ends_with("/")) {
        reject(write_set_problem::directory, "directory instead of a file");
        continue;
      }
      if (claim.find('\0') != std::string_view::npos) {
        reject(write_set_problem::unresolvable, "NUL byte in path");
        continue;
      }
      auto typed = resolve_typed_path(fs::path(std::string(claim)), workspace, &walks);
      if (!typed.is_ok()) {
        reject(write_set_problem::unresolvable,
               "cannot resolve path (" + typed.error().message() + ")");
        continue;
      }
      const fs::path& resolved = typed->path;
      if (!is_within(resolved, workspace)) {
        reject(write_set_problem::outside_workspace,
               "path outside the workspace (resolves to " + resolved.string() + ")");
        continue;
      }
      if (resolved == workspace) {
        reject(write_set_problem::workspace_root, "the workspace root itself");
        continue;
      }
      auto kind = typed->type;
      if (kind == fs::file_type::directory) {
        reject(write_set_problem::directory, "existing directory instead of a file");
        continue;
      }
      if (auto why = protected_reason(resolved.lexically_relative(workspace)); !why.empty()) {
        reject(write_set_problem::protected_path, why);
        continue;
      }
      if (kind != fs::file_type::none && kind != fs::file_type::regular &&
          kind != fs::file_type::not_found) {
        reject(write_set_problem::not_regular,
               "not a regular file (a FIFO, socket or device blocks or harms whoever writes it)");
        continue;
      }
      paths.insert(resolved.string());
    }
  }
  if (paths.empty())
    add(write_set_problem::no_valid_path, 0, {},
        std::string(plan_label) + ": the Modified Files Summary claims no valid workspace file");
  report.paths.assign(paths.begin(), paths.end());
  return report;
}

} // namespace

write_set_report inspect_write_set(std::string_view plan_text, const fs::path& workspace,
                                   std::string_view plan_label) {
  return inspect_with(plan_text, resolve_path(workspace, fs::current_path()), plan_label,
                      nullptr);
}

write_set_report inspect_write_set_in(std::string_view plan_text,
                                      const fs::path& resolved_workspace,
                                      std::string_view plan_label, path_walk_memo* walks) {
  return inspect_with(plan_text, result<fs::path>(resolved_workspace), plan_label, walks);
}

} // namespace ad::runtime
