#include "runtime/claims/claim_scope.hpp"

#include <algorithm>

#include "runtime/core/files.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

std::string without_trailing_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/')
    s.pop_back();
  return s;
}

// The lexical absolute form and, when it differs, the resolved one (a
// symlinked session folder is excluded both as the link and as its target).
// A prefix at or above the root (an exempt "." or a link to the root) would
// exclude the whole workspace and is left out.
void add_prefix(std::vector<std::string>& out, const std::string& root, const fs::path& p) {
  auto add = [&](const fs::path& prefix) {
    std::string s = without_trailing_slash(prefix.string());
    if (!path_at_or_below(root, s))
      out.push_back(std::move(s));
  };
  fs::path lexical = p.lexically_normal();
  add(lexical);
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(lexical, ec);
  if (!ec)
    add(resolved);
}

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return c != ' ' && c != '\t' && c != '\r' && c != '\n'; };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

// "gitdir: <path>" of a `.git` file, resolved against `base`; empty when the
// file cannot be read or says something else.
fs::path git_file_target(const fs::path& git_file, const fs::path& base) {
  auto text = read_file(git_file, 64 << 10);
  if (!text)
    return {};
  std::string line = trim(text->substr(0, text->find('\n')));
  constexpr std::string_view tag = "gitdir:";
  if (line.rfind(tag, 0) != 0)
    return {};
  fs::path target = trim(line.substr(tag.size()));
  if (target.empty())
    return {};
  return target.is_absolute() ? target : base / target;
}

} // namespace

bool path_at_or_below(std::string_view path, std::string_view prefix) {
  if (prefix.empty() || path.size() < prefix.size() || path.compare(0, prefix.size(), prefix) != 0)
    return false;
  return path.size() == prefix.size() || prefix == "/" || path[prefix.size()] == '/';
}

result<claim_scope> claim_scope::make(const claim_scope_options& options) {
  std::error_code ec;
  fs::path root = fs::canonical(options.workspace, ec);
  if (ec || !fs::is_directory(root, ec))
    return status::invalid_argument("workspace " + options.workspace.string()
                                    + " is not an existing folder");
  claim_scope scope;
  scope.root_ = without_trailing_slash(root.string());
  auto& out = scope.excluded_;
  fs::path git = root / ".git";
  add_prefix(out, scope.root_, git);
  if (fs::is_regular_file(fs::symlink_status(git, ec))) {
    fs::path gitdir = git_file_target(git, root);
    if (!gitdir.empty()) {
      add_prefix(out, scope.root_, gitdir);
      // A worktree's gitdir names the shared repository in "commondir".
      auto text = read_file(gitdir / "commondir", 64 << 10);
      if (text) {
        fs::path c = trim(*text);
        if (!c.empty())
          add_prefix(out, scope.root_, c.is_absolute() ? c : gitdir / c);
      }
    }
  }
  add_prefix(out, scope.root_, root / "agent-task");
  if (!options.state_root.empty())
    add_prefix(out, scope.root_, options.state_root.is_absolute() ? options.state_root
                                                     : root / options.state_root);
  for (const auto& e : options.exempt) {
    if (e.empty())
      continue;
    add_prefix(out, scope.root_, e.is_absolute() ? e : root / e);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return scope;
}

bool claim_scope::is_excluded(std::string_view path) const {
  for (const auto& prefix : excluded_)
    if (path_at_or_below(path, prefix))
      return true;
  return false;
}

bool claim_scope::excludes_below(std::string_view folder) const {
  for (const auto& prefix : excluded_)
    if (prefix.size() > folder.size() && path_at_or_below(prefix, folder))
      return true;
  return false;
}

path_scope claim_scope::classify(std::string_view path) const {
  if (root_.empty() || !path_at_or_below(path, root_))
    return path_scope::outside;
  if (path.size() == root_.size() || is_excluded(path))
    return path_scope::excluded;
  return path_scope::watched;
}

} // namespace ad::runtime
