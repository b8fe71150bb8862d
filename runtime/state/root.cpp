#include "runtime/state/root.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "runtime/core/files.hpp"
#include "runtime/core/hash.hpp"
#include "runtime/state/durable_store.hpp"
#include "runtime/state/journal.hpp"

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

namespace {

status damaged(const std::string& what) {
  return status::corruption(what + ". " + std::string(state_root_fix));
}

// The kernel's own file systems: nothing durable can live there.
const char* kernel_file_system(const fs::path& canonical) {
  struct statfs st {};
  if (::statfs(canonical.c_str(), &st) == 0) {
    switch (static_cast<unsigned long>(st.f_type)) {
      case PROC_SUPER_MAGIC: return "/proc";
      case SYSFS_MAGIC: return "/sys";
      case CGROUP_SUPER_MAGIC:
      case CGROUP2_SUPER_MAGIC: return "cgroup";
      case DEBUGFS_MAGIC: return "debugfs";
      case TRACEFS_MAGIC: return "tracefs";
      case SECURITYFS_MAGIC: return "securityfs";
      default: break;
    }
  }
  auto first = canonical.begin();
  if (first != canonical.end() && ++first != canonical.end()) {
    if (*first == "proc")
      return "/proc";
    if (*first == "sys")
      return "/sys";
  }
  return nullptr;
}

// A state file (journal.log, state.json) that exists in some form: it must
// be a regular file after links, and readable.
status check_state_file(const fs::path& path, const char* what) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0)
    return status::ok(); // missing: the caller decides
  struct stat target {};
  if (::stat(path.c_str(), &target) != 0) {
    if (errno == ENOENT && S_ISLNK(link.st_mode)) {
      std::error_code ec;
      auto to = fs::read_symlink(path, ec);
      return damaged(std::string(what) + " " + path.string() +
                     " is a symlink to a file that does not exist (" + to.string() + ")");
    }
    return damaged(std::string("cannot read the ") + what + " " + path.string() + ": " +
                   std::strerror(errno));
  }
  auto opened = open_regular_file(path);
  if (!opened)
    return damaged(std::string(what) + " " + opened.error().message());
  ::close(*opened);
  return status::ok();
}

} // namespace

status check_missing_journal(const fs::path& root) {
  fs::path jpath = root / journal_file_name;
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(jpath, ec)))
    return damaged("state journal " + jpath.string() + " is a symlink to a file that does not exist");
  fs::path snapshot = root / snapshot_file_name;
  if (fs::exists(fs::symlink_status(snapshot, ec)))
    return damaged("state journal " + jpath.string() + " is missing but the snapshot " +
                   snapshot.string() + " exists: the entries after the snapshot are lost");
  fs::path runs = root / "runs";
  if (fs::is_directory(runs, ec) && !fs::is_empty(runs, ec))
    return damaged("state journal " + jpath.string() + " is missing but " + runs.string() +
                   " holds attempts of earlier runs");
  fs::path mark = root / mark_file_name;
  if (auto text = read_file(mark, 1 << 16); text && !text->empty()) {
    auto seq = decode_mark(*text);
    if (!seq)
      return damaged("state journal " + jpath.string() + " is missing and the journal mark " +
                     mark.string() + " beside it is damaged: whether entries were durable cannot "
                     "be told");
    if (*seq > 0)
      return damaged("state journal " + jpath.string() + " is missing; the state ends at entry 0, "
                     "but the journal mark " + mark.string() + " records that entry " +
                     std::to_string(*seq) + " was durable: acknowledged entries are lost");
  } else if (!text && !text.error().is_not_found()) {
    return damaged("state journal " + jpath.string() + " is missing and the journal mark " +
                   text.error().message());
  }
  return status::ok();
}

result<state_root_kind> check_state_root(const fs::path& root) {
  struct stat link {};
  if (::lstat(root.c_str(), &link) != 0) {
    if (errno == ENOENT)
      return state_root_kind::fresh;
    return damaged("cannot read the state root " + root.string() + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      std::error_code ec;
      auto to = fs::read_symlink(root, ec);
      return damaged("the state root " + root.string() + " is a symlink to " + to.string() +
                     ", which does not exist");
    }
    return damaged("cannot read the state root " + root.string() + ": " + std::strerror(errno));
  }
  std::error_code ec;
  fs::path canonical = fs::canonical(root, ec);
  if (ec)
    return damaged("cannot resolve the state root " + root.string() + ": " + ec.message());
  if (const char* kernel = kernel_file_system(canonical))
    return damaged("the state root " + root.string() +
                   (canonical == root ? std::string() : " resolves to " + canonical.string() + ",") +
                   " inside the kernel's " + kernel + " file system, where no durable state can be");
  if (!S_ISDIR(st.st_mode))
    return damaged("the state root " + root.string() + " is " +
                   std::string(describe_file_kind(st.st_mode)) + ", not a folder");
  if (::access(root.c_str(), R_OK | X_OK) != 0)
    return damaged("cannot read the state root " + root.string() + ": " + std::strerror(errno));
  if (auto bad = check_state_file(root / snapshot_file_name, "state snapshot"); !bad)
    return bad;
  fs::path jpath = root / journal_file_name;
  if (auto bad = check_state_file(jpath, "state journal"); !bad)
    return bad;
  struct stat journal {};
  if (::lstat(jpath.c_str(), &journal) == 0)
    return state_root_kind::existing;
  if (auto bad = check_missing_journal(root); !bad)
    return bad;
  return state_root_kind::fresh;
}

result<state_root> open_state_root(const workspace_identity& workspace, const state_env& env) {
  auto path = resolve_state_root(workspace, env);
  if (!path)
    return path.error();
  auto kind = check_state_root(*path);
  if (!kind)
    return kind.error();
  return state_root{std::move(*path), *kind};
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
