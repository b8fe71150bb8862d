#include "tests/contract/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace ad::contract {
namespace {

int decode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Spawns spec in a new process group; returns the pid or -errno.
pid_t spawn(const spawn_spec& spec) {
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  auto out = spec.stdout_file.empty() ? std::string("/dev/null") : spec.stdout_file.string();
  auto err = spec.stderr_file.empty() ? std::string("/dev/null") : spec.stderr_file.string();
  posix_spawn_file_actions_addopen(&files, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&files, spec.cwd.c_str());

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  pid_t pid = -1;
  int rc = spec.argv.empty() ? EINVAL
                             : posix_spawn(&pid, spec.argv[0].c_str(), &files, &attr,
                                           argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&files);
  return rc == 0 ? pid : -rc;
}

void kill_group(pid_t pid) {
  if (pid > 0) ::kill(-pid, SIGKILL);
}

} // namespace

run_outcome run_to_end(const spawn_spec& spec, std::chrono::milliseconds timeout) {
  run_outcome r;
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = spawn(spec);
  if (pid < 0) {
    r.start_error = spec.argv.empty() ? "no argv" : spec.argv[0] + ": " + std::strerror(-pid);
    return r;
  }
  r.started = true;
  auto deadline = t0 + timeout;
  int status = 0;
  for (;;) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      r.timed_out = true;
      // SIGTERM first: agent-dispatch stops its agents, which run in
      // process groups of their own that a group kill would miss.
      ::kill(pid, SIGTERM);
      auto grace = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (::waitpid(pid, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < grace)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      kill_group(pid);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Whatever the program left behind in its group goes too.
  kill_group(pid);
  r.exit_code = decode(status);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

spawned_process::~spawned_process() {
  if (pid_ > 0) stop(std::chrono::milliseconds(500));
}

std::string spawned_process::start(const spawn_spec& spec) {
  pid_t pid = spawn(spec);
  if (pid < 0) return (spec.argv.empty() ? "" : spec.argv[0]) + ": " + std::strerror(-pid);
  pid_ = pid;
  return {};
}

int spawned_process::stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + grace;
  int status = 0;
  bool reaped = false;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill_group(pid_);
  if (!reaped) ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return decode(status);
}

std::string getenv_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

} // namespace ad::contract
