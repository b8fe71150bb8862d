#include "runtime/process/spawn.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <string_view>

extern char** environ;

namespace ad::runtime {

namespace {

// Closes what it holds unless released.
struct fd_pair {
  int fds[2] = {-1, -1};
  ~fd_pair() {
    for (int fd : fds)
      if (fd >= 0)
        ::close(fd);
  }
};

struct spawn_resources {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  bool actions_ok = false;
  bool attr_ok = false;
  ~spawn_resources() {
    if (actions_ok)
      posix_spawn_file_actions_destroy(&actions);
    if (attr_ok)
      posix_spawnattr_destroy(&attr);
  }
};

std::string_view variable_name(std::string_view entry) {
  auto eq = entry.find('=');
  return eq == std::string_view::npos ? entry : entry.substr(0, eq);
}

launch_failure failure_from(int err, const spawn_request& request) {
  const std::string& cmd = request.argv.front();
  switch (err) {
    case ENOENT: return {err, "command not found: " + cmd};
    case EACCES: return {err, "command not executable (permission denied): " + cmd};
    case ENOEXEC: return {err, "command has an unknown executable format: " + cmd};
    default: return {err, "launch of " + cmd + " failed: " + std::strerror(err)};
  }
}

} // namespace

std::vector<std::string> child_environment(const spawn_request& request) {
  std::set<std::string, std::less<>> replaced;
  for (const auto& [name, value] : request.env_additions)
    replaced.insert(name);
  if (!request.marker.empty())
    replaced.insert(execution_marker_variable);
  std::vector<std::string> env;
  for (char** p = environ; p != nullptr && *p != nullptr; ++p) {
    std::string_view entry(*p);
    if (replaced.count(variable_name(entry)) == 0)
      env.emplace_back(entry);
  }
  for (const auto& [name, value] : request.env_additions)
    env.push_back(name + "=" + value);
  if (!request.marker.empty())
    env.push_back(std::string(execution_marker_variable) + "=" + request.marker);
  return env;
}

std::variant<spawned_child, launch_failure> spawn_child(const spawn_request& request) {
  if (request.argv.empty() || request.argv.front().empty())
    return launch_failure{EINVAL, "command not found: empty argv"};
  struct stat st {};
  if (::stat(request.cwd.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return launch_failure{ENOENT, "working directory missing: " + request.cwd.string()};

  fd_pair out;
  fd_pair err;
  if (::pipe2(out.fds, O_CLOEXEC) != 0 || ::pipe2(err.fds, O_CLOEXEC) != 0) {
    int e = errno;
    return launch_failure{e, std::string("cannot create pipes: ") + std::strerror(e)};
  }
  // Bigger pipes mean fewer wake-ups for chatty agents; failure is harmless.
  ::fcntl(out.fds[0], F_SETPIPE_SZ, 1 << 20);
  ::fcntl(err.fds[0], F_SETPIPE_SZ, 256 << 10);

  spawn_resources res;
  if (posix_spawn_file_actions_init(&res.actions) != 0)
    return launch_failure{ENOMEM, "cannot prepare spawn file actions"};
  res.actions_ok = true;
  if (posix_spawnattr_init(&res.attr) != 0)
    return launch_failure{ENOMEM, "cannot prepare spawn attributes"};
  res.attr_ok = true;

  int rc = 0;
  if (request.stdin_fd >= 0)
    rc |= posix_spawn_file_actions_adddup2(&res.actions, request.stdin_fd, STDIN_FILENO);
  else
    rc |= posix_spawn_file_actions_addopen(&res.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  rc |= posix_spawn_file_actions_adddup2(&res.actions, out.fds[1], STDOUT_FILENO);
  rc |= posix_spawn_file_actions_adddup2(&res.actions, err.fds[1], STDERR_FILENO);
  rc |= posix_spawn_file_actions_addchdir_np(&res.actions, request.cwd.c_str());
  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  sigset_t all_signals;
  sigfillset(&all_signals);
  rc |= posix_spawnattr_setsigmask(&res.attr, &empty_mask);
  rc |= posix_spawnattr_setsigdefault(&res.attr, &all_signals);
  rc |= posix_spawnattr_setflags(
    &res.attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  if (rc != 0)
    return launch_failure{EINVAL, "cannot configure posix_spawn"};

  std::vector<char*> argv;
  argv.reserve(request.argv.size() + 1);
  for (const auto& a : request.argv)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = child_environment(request);
  std::vector<char*> envp;
  envp.reserve(env_strings.size() + 1);
  for (auto& e : env_strings)
    envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  int err_code = posix_spawnp(&pid, argv[0], &res.actions, &res.attr, argv.data(), envp.data());
  if (err_code != 0)
    return failure_from(err_code, request);

  ::close(out.fds[1]);
  out.fds[1] = -1;
  ::close(err.fds[1]);
  err.fds[1] = -1;
  ::fcntl(out.fds[0], F_SETFL, ::fcntl(out.fds[0], F_GETFL) | O_NONBLOCK);
  ::fcntl(err.fds[0], F_SETFL, ::fcntl(err.fds[0], F_GETFL) | O_NONBLOCK);
  spawned_child child;
  child.pid = pid;
  child.stdout_fd = out.fds[0];
  child.stderr_fd = err.fds[0];
  out.fds[0] = -1;
  err.fds[0] = -1;
  return child;
}

} // namespace ad::runtime
