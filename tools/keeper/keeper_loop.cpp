#include "tools/keeper/keeper_loop.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/keeper/keeper_machine.hpp"

namespace ad::keeper {

using namespace runtime;

namespace {

int64_t monotonic_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// Reads of 16 KiB: the agent's pipe holds 1 MiB, so a bigger buffer would
// only add to the resident size; the per-line writes cost far more.
constexpr std::size_t read_chunk = 16 << 10;
// After the drain time, what a pipe still holds is read this many times at
// most before it is closed.
constexpr int final_reads = 64;

class loop {
public:
  loop(const keeper_invocation& inv, const launched_agent& agent, int signal_fd, stream_spool& spool,
       keeper_log& log, attempt_processes& processes)
    : inv_(inv), pid_(agent.pid), signal_fd_(signal_fd), spool_(spool), log_(log),
      processes_(processes), machine_(timing_of(inv)), buf_(read_chunk) {
    pipes_[0] = {agent.stdout_fd, spool_channel::out};
    pipes_[1] = {agent.stderr_fd, spool_channel::err};
  }

  loop_result run();

private:
  struct pipe {
    int fd = -1;
    spool_channel channel = spool_channel::out;
  };

  static keeper_timing timing_of(const keeper_invocation& inv) {
    keeper_timing t;
    t.grace_ms = inv.grace_ms;
    return t;
  }
  void send(group_signal s);
  void read_signals(int64_t now);
  void reap(int64_t now);
  void clean_up(int64_t now);
  enum class read_result : uint8_t { data, nothing, closed };
  read_result read_once(pipe& p);
  void close_pipe(pipe& p);
  void check_lease(int64_t now);
  void note_write_error(const status& st);

  const keeper_invocation& inv_;
  const int pid_;
  const int signal_fd_;
  stream_spool& spool_;
  keeper_log& log_;
  attempt_processes& processes_;
  keeper_machine machine_;
  pipe pipes_[2];
  std::vector<char> buf_;
  int wait_status_ = 0;
  int64_t next_lease_check_ = -1;
  bool write_error_noted_ = false;
};

int signal_of(group_signal s) { return s == group_signal::terminate ? SIGTERM : SIGKILL; }

// A stop: the agent's group and every other process of the attempt.
void loop::send(group_signal s) {
  if (s == group_signal::none)
    return;
  int sig = signal_of(s);
  ::kill(-pid_, sig);
  processes_.signal(processes_.list(), sig);
  log_.note("sent " + signal_name(sig) + " to the agent's process group " + std::to_string(pid_) +
            " and every other process of the attempt");
}

// After the agent's end: what it left gets SIGTERM, then SIGKILL.
void loop::clean_up(int64_t now) {
  if (!machine_.agent_has_ended() || machine_.cleanup_done())
    return;
  std::vector<int> left = processes_.list();
  group_signal s = machine_.leftovers(left.empty() ? leftover_presence::none : leftover_presence::some, now);
  if (machine_.cleanup_gave_up())
    log_.note("gave up on " + std::to_string(left.size()) + " processes of the attempt that would not die");
  if (s == group_signal::none)
    return;
  processes_.note_leftovers(left);
  processes_.signal(left, signal_of(s));
}

void loop::read_signals(int64_t now) {
  signalfd_siginfo info{};
  while (::read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    if (info.ssi_signo == SIGTERM) {
      group_signal s = machine_.stop(keeper_initiator::dispatcher, now);
      log_.note(s == group_signal::none ? "SIGTERM received; the agent has ended already"
                                        : "SIGTERM received: stopping the agent");
      send(s);
    } else if (info.ssi_signo == SIGCHLD) {
      reap(now);
    }
  }
}

// Reaps the agent and the orphans of its tree (re-parented to the keeper,
// its subreaper).
void loop::reap(int64_t now) {
  for (;;) {
    int st = 0;
    pid_t r = ::waitpid(-1, &st, WNOHANG);
    if (r < 0 && errno == ECHILD && !machine_.agent_has_ended()) {
      // Reaped by someone else (cannot happen with SIGCHLD at its default):
      // its status is lost; record a plain exit rather than wait for ever.
      log_.note("the agent was reaped elsewhere: its exit status is unknown");
      r = pid_;
      st = 0;
    }
    if (r <= 0)
      return;
    if (r != pid_ || machine_.agent_has_ended())
      continue; // an orphan of the agent's tree
    wait_status_ = st;
    machine_.agent_ended(now);
    if (WIFSIGNALED(st))
      log_.note("the agent was killed by " + signal_name(WTERMSIG(st)));
    else
      log_.note("the agent exited with code " + std::to_string(WEXITSTATUS(st)));
  }
}

void loop::note_write_error(const status& st) {
  if (st || write_error_noted_)
    return;
  write_error_noted_ = true;
  log_.note("cannot write the agent's output (further errors are counted, not noted): " + st.message());
}

// One read; at EOF (or a read error) the pipe is closed.
loop::read_result loop::read_once(pipe& p) {
  ssize_t n = ::read(p.fd, buf_.data(), buf_.size());
  if (n > 0) {
    note_write_error(spool_.feed(p.channel, std::string_view(buf_.data(), static_cast<std::size_t>(n))));
    return read_result::data;
  }
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return read_result::nothing;
  close_pipe(p);
  return read_result::closed;
}

void loop::close_pipe(pipe& p) {
  note_write_error(spool_.finish(p.channel));
  ::close(p.fd);
  p.fd = -1;
  if (pipes_[0].fd < 0 && pipes_[1].fd < 0)
    machine_.output_closed();
}

void loop::check_lease(int64_t now) {
  if (next_lease_check_ < 0 || now < next_lease_check_)
    return;
  next_lease_check_ = now + lease_check_interval_ms(inv_.lease_ms);
  struct stat st {};
  // Any failure to see the file counts as a lost lease: fencing errs on the
  // safe side.
  bool present = ::stat(inv_.lease_file.c_str(), &st) == 0;
  millis modified = present ? static_cast<millis>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000 : 0;
  millis wall = system_clock().now();
  if (judge_lease(present ? lease_file_presence::present : lease_file_presence::missing, modified, wall,
                  inv_.lease_ms) == lease_state::held)
    return;
  next_lease_check_ = -1;
  group_signal s = machine_.stop(keeper_initiator::lease, now);
  if (s == group_signal::none)
    return; // stopping already
  log_.note(present ? "the lease " + inv_.lease_file.string() + " is " + std::to_string(wall - modified) +
                        " ms old: stopping the agent"
                    : "the lease " + inv_.lease_file.string() + " is gone: stopping the agent");
  send(s);
}

loop_result loop::run() {
  if (!inv_.lease_file.empty())
    next_lease_check_ = monotonic_ms() + lease_check_interval_ms(inv_.lease_ms);
  while (!machine_.finished()) {
    int64_t now = monotonic_ms();
    int64_t deadline = machine_.next_deadline();
    if (next_lease_check_ >= 0 && !machine_.agent_has_ended())
      deadline = deadline < 0 ? next_lease_check_ : std::min(deadline, next_lease_check_);
    int timeout = deadline < 0 ? -1 : static_cast<int>(std::clamp<int64_t>(deadline - now, 0, 60000));
    pollfd fds[3];
    nfds_t n = 0;
    fds[n++] = {signal_fd_, POLLIN, 0};
    pipe* polled[3] = {nullptr, nullptr, nullptr};
    for (pipe& p : pipes_)
      if (p.fd >= 0) {
        polled[n] = &p;
        fds[n++] = {p.fd, POLLIN, 0};
      }
    int rc = ::poll(fds, n, timeout);
    now = monotonic_ms();
    if (rc < 0 && errno != EINTR)
      log_.note(std::string("poll failed: ") + std::strerror(errno));
    if (rc > 0) {
      if (fds[0].revents != 0)
        read_signals(now);
      for (nfds_t i = 1; i < n; ++i)
        if (fds[i].revents != 0 && read_once(*polled[i]) == read_result::closed)
          reap(now); // EOF: often the agent's end
    }
    if (!machine_.agent_has_ended())
      check_lease(now);
    send(machine_.tick(now));
    clean_up(now);
    if (machine_.drain_over(now)) {
      log_.note("the agent's output is still open after its end (a process kept alive holds it): closing it");
      for (pipe& p : pipes_)
        for (int i = 0; p.fd >= 0 && i < final_reads; ++i)
          if (read_once(p) != read_result::data)
            break;
      for (pipe& p : pipes_)
        if (p.fd >= 0)
          close_pipe(p);
    }
  }
  return {wait_status_, machine_.termination(), machine_.cleanup_gave_up()};
}

} // namespace

loop_result run_keeper_loop(const keeper_invocation& inv, const launched_agent& agent, int signal_fd,
                            stream_spool& spool, keeper_log& log, attempt_processes& processes) {
  loop l(inv, agent, signal_fd, spool, log, processes);
  return l.run();
}

} // namespace ad::keeper
