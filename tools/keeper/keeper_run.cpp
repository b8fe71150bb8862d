#include "tools/keeper/keeper_run.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/core/clock.hpp"
#include "runtime/core/proc_stat.hpp"
#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/keeper_records.hpp"
#include "runtime/keeper/stream_spool.hpp"
#include "tools/keeper/agent_launch.hpp"
#include "tools/keeper/attempt_processes.hpp"
#include "tools/keeper/keeper_log.hpp"
#include "tools/keeper/keeper_loop.hpp"

namespace ad::keeper {

using namespace runtime;
namespace fs = std::filesystem;

namespace {

// Leaves the caller's terminal and job control behind. Returns the signalfd
// for SIGTERM and SIGCHLD, or -1.
int detach() {
  // Descriptors 0-2 stay open (a closed one would be reused by a pipe and
  // then clobbered in the child); everything else inherited is not passed on.
  for (int fd = 0; fd <= 2; ++fd)
    if (::fcntl(fd, F_GETFD) < 0)
      ::open("/dev/null", O_RDWR);
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  if (::getsid(0) != ::getpid())
    ::setsid(); // fails only for a process group leader: it keeps its session
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (int sig : {SIGPIPE, SIGHUP, SIGINT, SIGQUIT})
    ::sigaction(sig, &ignore, nullptr);
  // An ignored SIGCHLD lets the kernel reap the agent before the keeper
  // can read its status: whatever the caller left, SIGCHLD and SIGTERM get
  // their default action (both blocked below, so they wait in the signalfd).
  struct sigaction deflt {};
  deflt.sa_handler = SIG_DFL;
  for (int sig : {SIGTERM, SIGCHLD})
    ::sigaction(sig, &deflt, nullptr);
  sigset_t handled;
  sigemptyset(&handled);
  sigaddset(&handled, SIGTERM);
  sigaddset(&handled, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  return ::signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
}

keeper_outcome folder_error(keeper_log& log, const std::string& what) {
  log.note(what);
  return {exit_folder_unwritable, what};
}

keeper_outcome finish(const fs::path& dir, const keeper_exit_record& record, keeper_log& log) {
  if (auto st = write_exit_record(dir, record); !st) {
    std::string what = "cannot write the exit record: " + st.message();
    log.note(what);
    return {exit_record_failed, what};
  }
  log.note(std::string("exit record written: ") + to_string(record.end));
  return {};
}

} // namespace

keeper_outcome run_keeper(const keeper_invocation& inv) {
  const fs::path& dir = inv.attempt_dir;
  keeper_log log;
  int signal_fd = detach();
  if (signal_fd < 0)
    return {exit_folder_unwritable, std::string("cannot create a signalfd: ") + std::strerror(errno)};

  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return {exit_folder_unwritable, "the attempt folder " + dir.string() + " does not exist"};
  for (std::string_view name : {keeper_record_file, keeper_exit_file})
    if (::access((dir / name).c_str(), F_OK) == 0)
      return {exit_folder_unwritable,
              "the attempt folder " + dir.string() + " already holds " + std::string(name) + ": it was used before"};
  if (auto opened = log.open(dir / keeper_log_file); !opened)
    return {exit_folder_unwritable, "cannot write in the attempt folder: " + opened.message()};
  auto spool = stream_spool::create(dir / keeper_stream_file, inv.retention, inv.line_cap);
  if (!spool)
    return folder_error(log, "cannot write in the attempt folder: " + spool.error().message());

  attempt_processes processes(inv, log);
  auto launched = launch_agent(inv, processes.procs_fd());
  if (auto* failed = std::get_if<agent_launch_failure>(&launched)) {
    log.note("the agent did not start: " + failed->reason);
    keeper_exit_record record;
    record.end = keeper_end::launch_failed;
    record.exit_code = launch_failure_exit_code;
    record.reason = failed->reason;
    record.ended_at_ms = system_clock().now();
    record.containment = processes.finish(false);
    return finish(dir, record, log);
  }
  const launched_agent& agent = std::get<launched_agent>(launched);
  processes.agent_started(agent.joined_cgroup);

  keeper_record rec;
  rec.keeper_pid = ::getpid();
  auto keeper_token = process_start_token(rec.keeper_pid);
  rec.keeper_start_token = keeper_token ? *keeper_token : "";
  rec.agent_pid = agent.pid;
  rec.agent_pgid = agent.pid;
  auto agent_token = process_start_token(agent.pid);
  rec.agent_start_token = agent_token ? *agent_token : "";
  rec.marker = inv.marker;
  rec.argv0 = inv.agent_argv.front();
  rec.started_at_ms = system_clock().now();
  rec.line_cap = inv.line_cap;
  rec.head_bytes = inv.retention.head_bytes;
  rec.tail_bytes = inv.retention.tail_bytes;
  rec.containment = processes.kind();
  rec.cgroup = processes.cgroup();
  if (auto written = write_keeper_record(dir, rec); !written) {
    ::kill(-agent.pid, SIGKILL);
    processes.signal(processes.list(), SIGKILL);
    int ignored = 0;
    ::waitpid(agent.pid, &ignored, 0);
    (void) processes.finish(false);
    return folder_error(log, "cannot write the keeper record, the agent was killed: " + written.message());
  }
  log.note("keeper " + std::to_string(rec.keeper_pid) + " started the agent " + std::to_string(agent.pid) +
           " (" + rec.argv0 + ")");

  loop_result ended = run_keeper_loop(inv, agent, signal_fd, *spool, log, processes);

  keeper_exit_record record;
  if (WIFSIGNALED(ended.wait_status)) {
    record.end = keeper_end::signaled;
    record.signal = WTERMSIG(ended.wait_status);
    record.exit_code = 128 + record.signal;
  } else {
    record.end = keeper_end::exited;
    record.exit_code = WIFEXITED(ended.wait_status) ? WEXITSTATUS(ended.wait_status) : 0;
  }
  record.termination = ended.termination;
  record.stream = spool->counts();
  record.containment = processes.finish(ended.cleanup_gave_up);
  record.ended_at_ms = system_clock().now();
  if (record.stream.write_failures > 0)
    log.note(std::to_string(record.stream.write_failures) + " lines of output could not be written");
  return finish(dir, record, log);
}

} // namespace ad::keeper
