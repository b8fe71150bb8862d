#include "tools/keeper/agent_launch.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <utility>
#include <string_view>
#include <vector>

#include "runtime/keeper/keeper_files.hpp"

extern char** environ;

namespace ad::keeper {

namespace {

// What the child reports through the error pipe: a failure it gives up on
// (1: chdir, 2: exec), or that it could not join the cgroup (3; it goes
// on).
struct child_report {
  int step = 0;
  int error = 0;
};
constexpr int step_cgroup = 3;

// The descriptors of one launch; whatever is still held is closed at the end.
struct launch_fds {
  int out_r = -1, out_w = -1, err_r = -1, err_w = -1, report_r = -1, report_w = -1, null_fd = -1;
  ~launch_fds() {
    for (int fd : {out_r, out_w, err_r, err_w, report_r, report_w, null_fd})
      if (fd >= 0)
        ::close(fd);
  }
};

void close_now(int& fd) {
  ::close(fd);
  fd = -1;
}

std::vector<std::string> agent_environment(const runtime::keeper_invocation& inv) {
  std::set<std::string, std::less<>> replaced{std::string(runtime::keeper_marker_variable)};
  for (const auto& [name, value] : inv.env)
    replaced.insert(name);
  std::vector<std::string> env;
  for (char** p = environ; p != nullptr && *p != nullptr; ++p) {
    std::string_view entry(*p);
    if (replaced.count(entry.substr(0, entry.find('='))) == 0)
      env.emplace_back(entry);
  }
  for (const auto& [name, value] : inv.env)
    env.push_back(name + "=" + value);
  env.push_back(std::string(runtime::keeper_marker_variable) + "=" + inv.marker);
  return env;
}

agent_launch_failure failure_of(const child_report& report, const runtime::keeper_invocation& inv) {
  const std::string& argv0 = inv.agent_argv.front();
  if (report.step == 1)
    return {report.error,
            "cannot enter the working directory " + inv.cwd.string() + ": " + std::strerror(report.error)};
  if (report.error == ENOENT)
    return {report.error, "command not found: " + argv0};
  return {report.error, "cannot execute " + argv0 + ": " + std::strerror(report.error)};
}

[[noreturn]] void child_fail(int report_fd, int step) {
  child_report report{step, errno};
  ssize_t n = ::write(report_fd, &report, sizeof report);
  (void) n;
  ::_exit(127);
}

} // namespace

std::variant<launched_agent, agent_launch_failure> launch_agent(const runtime::keeper_invocation& inv,
                                                                int cgroup_procs_fd) {
  // Everything the child needs is built before vfork: after it, the child
  // only makes system calls.
  std::vector<std::string> env_strings = agent_environment(inv);
  std::vector<char*> envp;
  for (auto& e : env_strings)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> argv;
  for (const auto& a : inv.agent_argv)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  launch_fds fds;
  int out[2], err[2], report[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    return agent_launch_failure{errno, std::string("cannot create pipes: ") + std::strerror(errno)};
  fds.out_r = out[0];
  fds.out_w = out[1];
  if (::pipe2(err, O_CLOEXEC) != 0)
    return agent_launch_failure{errno, std::string("cannot create pipes: ") + std::strerror(errno)};
  fds.err_r = err[0];
  fds.err_w = err[1];
  if (::pipe2(report, O_CLOEXEC) != 0)
    return agent_launch_failure{errno, std::string("cannot create pipes: ") + std::strerror(errno)};
  fds.report_r = report[0];
  fds.report_w = report[1];
  fds.null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fds.null_fd < 0)
    return agent_launch_failure{errno, std::string("cannot open /dev/null: ") + std::strerror(errno)};
  // A bigger stdout pipe means fewer wake-ups for a chatty agent (kernel
  // memory, not the keeper's); failure is harmless.
  ::fcntl(fds.out_r, F_SETPIPE_SZ, 1 << 20);

  const pid_t keeper = ::getpid();
  // vfork: the child borrows the keeper's memory until its exec, so no page
  // table is copied and no page faulted in twice (a fork of the keeper cost
  // a tenth of its CPU). The keeper waits meanwhile; the child touches no
  // memory but errno and makes only system calls (execvpe searches PATH on
  // its stack), and the keeper installs no signal handler it could run.
  pid_t pid = ::vfork();
  if (pid < 0) {
    int e = errno;
    return agent_launch_failure{e, std::string("cannot fork: ") + std::strerror(e)};
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != keeper)
      ::_exit(127); // the keeper died before the request took effect
    ::setsid();
    // "0" moves the writer: the agent and all it starts are in the cgroup.
    if (cgroup_procs_fd >= 0 && ::write(cgroup_procs_fd, "0", 1) != 1) {
      child_report report{step_cgroup, errno};
      ssize_t n = ::write(fds.report_w, &report, sizeof report);
      (void) n;
    }
    for (int sig : {SIGPIPE, SIGHUP, SIGINT, SIGQUIT})
      ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (::dup2(fds.null_fd, STDIN_FILENO) < 0 || ::dup2(fds.out_w, STDOUT_FILENO) < 0 ||
        ::dup2(fds.err_w, STDERR_FILENO) < 0)
      child_fail(fds.report_w, 2);
    if (!inv.cwd.empty() && ::chdir(inv.cwd.c_str()) != 0)
      child_fail(fds.report_w, 1);
    ::execvpe(argv[0], argv.data(), envp.data());
    child_fail(fds.report_w, 2);
  }

  close_now(fds.report_w);
  close_now(fds.out_w);
  close_now(fds.err_w);
  child_report got{};
  ssize_t n;
  bool joined = true;
  for (;;) {
    do {
      n = ::read(fds.report_r, &got, sizeof got); // EOF at a successful exec
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(sizeof got) || got.step != step_cgroup)
      break;
    joined = false;
  }
  if (n == static_cast<ssize_t>(sizeof got)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return failure_of(got, inv);
  }
  for (int fd : {fds.out_r, fds.err_r})
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  launched_agent agent{pid, std::exchange(fds.out_r, -1), std::exchange(fds.err_r, -1), joined};
  return agent;
}

} // namespace ad::keeper
