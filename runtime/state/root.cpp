#include "runtime/state/root.hpp"

#include <cstdlib>

#include "runtime/core/files.hpp"
#include "runtime/core/hash.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

result<workspace_identity> identify_workspace(const fs::path& workspace) {
  std::error_code ec;
  auto canonical = fs::canonical(fs::absolute(workspace, ec), ec);
  if (ec)
    return status::invalid_argument("workspace " + workspace.string() + ": " + ec.message());
  if (!fs::is_directory(canonical, ec))
    return status::invalid_argument("workspace " + canonical.string() + " is not a directory");
  auto text = canonical.string();
  return workspace_identity{text, sha256_hex(text).substr(0, 16)};
}

state_env state_env::from_process() {
  state_env env;
  if (const char* x = std::getenv("XDG_STATE_HOME"))
    env.xdg_state_home = x;
  if (const char* h = std::getenv("HOME"))
    env.home = h;
  return env;
}

result<fs::path> resolve_state_root(const workspace_identity& workspace, const state_env& env) {
  fs::path ws(workspace.path);
  fs::path dot_git = ws / ".git";
  std::error_code ec;
  auto st = fs::symlink_status(dot_git, ec);
  if (!ec && fs::is_directory(fs::status(dot_git, ec)))
    return dot_git / "agent-dispatch";
  if (!ec && fs::is_regular_file(st)) {
    auto text = read_file(dot_git, 64 << 10);
    if (!text)
      return text.error();
    std::string_view content = *text;
    constexpr std::string_view prefix = "gitdir:";
    if (content.substr(0, prefix.size()) != prefix)
      return status::invalid_argument(dot_git.string()
                                      + " is a file but does not start with \"gitdir:\"");
    content.remove_prefix(prefix.size());
    auto line_end = content.find('\n');
    std::string target(content.substr(0, line_end));
    while (!target.empty() && (target.back() == '\r' || target.back() == ' '))
      target.pop_back();
    size_t first = target.find_first_not_of(' ');
    target = first == std::string::npos ? std::string() : target.substr(first);
    if (target.empty())
      return status::invalid_argument(dot_git.string() + " names an empty gitdir");
    fs::path git_dir(target);
    if (git_dir.is_relative())
      git_dir = ws / git_dir;
    git_dir = git_dir.lexically_normal();
    if (!fs::is_directory(git_dir, ec))
      return status::invalid_argument(dot_git.string() + " points to " + git_dir.string()
                                      + ", which is not a directory");
    return git_dir / "agent-dispatch";
  }
  fs::path base;
  if (!env.xdg_state_home.empty() && fs::path(env.xdg_state_home).is_absolute())
    base = env.xdg_state_home;
  else if (!env.home.empty())
    base = fs::path(env.home) / ".local" / "state";
  else
    return status::invalid_argument(
      "cannot place the state of workspace " + workspace.path
      + ": it is not a git checkout and neither XDG_STATE_HOME nor HOME is set");
  return base / "agent-dispatch" / workspace.id;
}

status check_workspace_identity(const workspace_identity& recorded,
                                const workspace_identity& current, const fs::path& file) {
  if (recorded == current)
    return status::ok();
  return status::invalid_argument(
    file.string() + " belongs to workspace " + recorded.path + " (id " + recorded.id
    + "), not to this workspace " + current.path + " (id " + current.id
    + "); run from the original workspace, or move this state root aside to start fresh");
}

} // namespace ad::runtime
