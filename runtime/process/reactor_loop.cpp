#include "runtime/process/reactor_impl.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <utility>

#include "runtime/keeper/keeper_liveness.hpp"
#include "runtime/process/liveness.hpp"

// The reactor thread: one epoll loop over every child's pipes and pidfd (or
// the SIGCHLD signalfd and sweep), the command queue's eventfd and the
// timers (silence ticks, kill deadlines, orphan drain). Kept children (an
// agent under ad-keeper) are followed in reactor_kept.cpp.

namespace ad::runtime {

using namespace reactor_detail;

namespace {

int64_t steady_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

int open_pidfd(int pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void) pid;
  errno = ENOSYS;
  return -1;
#endif
}

bool group_alive(int pgid) {
  return probe_process_group(pgid) == group_liveness::alive;
}

constexpr uint64_t tag_stdout = 0;
constexpr uint64_t tag_stderr = 1;
constexpr uint64_t tag_pidfd = 2;
constexpr uint64_t tag_control = 3; // id 0: eventfd, id 1: signalfd, id 2: inotify

uint64_t key(child_id id, uint64_t tag) { return (id << 2) | tag; }

} // namespace

process_reactor::impl::~impl() {
  for (int fd : {epfd, evfd, sigfd, infd})
    if (fd >= 0)
      ::close(fd);
}

status process_reactor::impl::open(reactor_options::watch_choice watch) {
  epfd = ::epoll_create1(EPOLL_CLOEXEC);
  if (epfd < 0)
    return status::from_errno("process reactor: epoll_create1", errno);
  evfd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (evfd < 0)
    return status::from_errno("process reactor: eventfd", errno);
  watch_fd(evfd, key(0, tag_control));
  use_pidfd = false;
  if (watch == reactor_options::watch_choice::automatic) {
    int probe = open_pidfd(static_cast<int>(::getpid()));
    if (probe >= 0) {
      ::close(probe);
      use_pidfd = true;
    }
  }
  if (!use_pidfd) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigfd = ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sigfd >= 0)
      watch_fd(sigfd, key(1, tag_control));
    // Without the signalfd the periodic sweep alone still finds every exit.
  }
  // Kept children's spools: one inotify descriptor for every attempt
  // folder. Without it the periodic read alone follows them.
  infd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (infd >= 0)
    watch_fd(infd, key(2, tag_control));
  return status::ok();
}

void process_reactor::impl::post(command c) {
  {
    std::lock_guard<std::mutex> guard(mu);
    queue.push_back(std::move(c));
  }
  uint64_t one = 1;
  ssize_t n = ::write(evfd, &one, sizeof one);
  (void) n;
}

void process_reactor::impl::watch_fd(int fd, uint64_t k) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = k;
  ::epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

void process_reactor::impl::unwatch_close(int& fd) {
  if (fd < 0)
    return;
  ::epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nullptr); // ENOENT while paused: harmless
  ::close(fd);
  fd = -1;
}

// --- output ---------------------------------------------------------------

void process_reactor::impl::emit_lines(child_record& c, pipe_state& p, std::string_view data) {
  if (c.kept)
    return; // a keeper's own output: its notes are in keeper.log
  p.splitter.feed(data, [&](std::string&& text, line_cut cut, uint64_t dropped) {
    c.unacked += text.size() + 1;
    process_line line{c.id, p.stream, std::move(text), cut, dropped};
    guarded([&] { c.sink->on_line(std::move(line)); });
  });
}

void process_reactor::impl::close_pipe(child_record& c, pipe_state& p) {
  if (c.kept) {
    unwatch_close(p.fd);
    return;
  }
  p.splitter.finish([&](std::string&& text, line_cut cut, uint64_t dropped) {
    process_line line{c.id, p.stream, std::move(text), cut, dropped};
    guarded([&] { c.sink->on_line(std::move(line)); });
  });
  unwatch_close(p.fd);
}

// One read; returns false at EOF or error (the pipe is then closed).
bool process_reactor::impl::read_once(child_record& c, pipe_state& p, int64_t now) {
  ssize_t n = ::read(p.fd, buf.data(), buf.size());
  if (n > 0) {
    c.last_activity = now;
    c.next_tick = now + c.silence_ms;
    emit_lines(c, p, std::string_view(buf.data(), static_cast<std::size_t>(n)));
    if (c.flow_window > 0 && c.unacked >= c.flow_window && !c.paused)
      pause(c);
    return true;
  }
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return true;
  close_pipe(c, p);
  return false;
}

// Reads what is left without waiting, then closes.
void process_reactor::impl::drain(child_record& c, pipe_state& p, int64_t now) {
  for (int i = 0; p.fd >= 0 && i < 64; ++i) {
    ssize_t n = ::read(p.fd, buf.data(), buf.size());
    if (n > 0) {
      c.last_activity = now;
      emit_lines(c, p, std::string_view(buf.data(), static_cast<std::size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    break;
  }
  if (p.fd >= 0)
    close_pipe(c, p);
}

// Takes both pipes out of epoll (removed rather than masked: a masked fd
// still reports EPOLLHUP). The child blocks in write(2) once its pipe is
// full; an exit is still seen through the pidfd or SIGCHLD, and the pipes
// are drained then.
void process_reactor::impl::pause(child_record& c) {
  c.paused = true;
  if (c.kept)
    return; // the spool waits on disk; the keeper's own pipes stay read
  for (pipe_state* p : {&c.out, &c.err})
    if (p->fd >= 0)
      ::epoll_ctl(epfd, EPOLL_CTL_DEL, p->fd, nullptr);
}

void process_reactor::impl::resume(child_record& c, int64_t now) {
  c.paused = false;
  if (c.kept) {
    c.last_activity = now;
    c.next_tick = now + c.silence_ms;
    poll_kept(c, now);
    return;
  }
  if (c.out.fd >= 0)
    watch_fd(c.out.fd, key(c.id, tag_stdout));
  if (c.err.fd >= 0)
    watch_fd(c.err.fd, key(c.id, tag_stderr));
  // Time spent paused was not silence.
  c.last_activity = now;
  c.next_tick = now + c.silence_ms;
}

// --- exits ----------------------------------------------------------------

void process_reactor::impl::mark_reaped(child_record& c, int wait_status, int64_t now) {
  c.reaped = true;
  c.wait_status = wait_status;
  unwatch_close(c.pidfd);
  c.linger_deadline = now + opt.orphan_drain_ms;
  if (c.terminating && !c.killed)
    c.linger_deadline = std::max(c.linger_deadline, c.kill_deadline + opt.orphan_drain_ms);
}

void process_reactor::impl::try_reap(child_record& c, int64_t now) {
  if (c.reaped)
    return;
  if (c.kept && c.kept->adopted) {
    // Not our child: no status to wait for; gone is gone.
    if (probe_process(c.pid, c.kept->keeper_token) == process_presence::gone)
      mark_reaped(c, 0, now);
    return;
  }
  int st = 0;
  pid_t r = ::waitpid(c.pid, &st, WNOHANG);
  if (r == c.pid)
    mark_reaped(c, st, now);
  else if (r < 0 && errno == ECHILD)
    mark_reaped(c, 0, now); // someone else reaped it; report a plain exit
}

void process_reactor::impl::finalize(child_record& c, int64_t now) {
  drain(c, c.out, now);
  drain(c, c.err, now);
  if (c.kept) {
    auto ex = kept_exit(c);
    if (c.kept->wd >= 0) {
      ::inotify_rm_watch(infd, c.kept->wd);
      watched_dirs.erase(c.kept->wd);
    }
    auto sink = std::move(c.sink);
    running->fetch_sub(1);
    guarded([&] { sink->on_exit(ex); });
    return;
  }
  process_exit ex;
  ex.id = c.id;
  ex.pid = c.pid;
  if (WIFSIGNALED(c.wait_status)) {
    ex.kind = exit_kind::signaled;
    ex.signal = WTERMSIG(c.wait_status);
    ex.exit_code = 128 + ex.signal;
  } else {
    ex.kind = exit_kind::exited;
    ex.exit_code = WIFEXITED(c.wait_status) ? WEXITSTATUS(c.wait_status) : 0;
  }
  if (group_alive(c.pid)) {
    lingering_group g;
    g.pgid = c.pid;
    g.terminating = c.terminating;
    g.killed = c.killed;
    g.kill_deadline = c.kill_deadline;
    lingering[c.id] = g;
  }
  auto sink = std::move(c.sink);
  running->fetch_sub(1);
  guarded([&] { sink->on_exit(ex); });
}

// --- commands -------------------------------------------------------------

void process_reactor::impl::start_termination(child_record& c, int64_t grace, int64_t now) {
  if (c.killed)
    return;
  if (c.kept) {
    // The keeper stops its agent's group itself; it and the group get
    // SIGKILL only when it does not end in time.
    if (c.reaped)
      return;
    if (!c.terminating) {
      c.terminating = true;
      c.kill_deadline = now + grace + opt.keeper_margin_ms;
      if (!c.kept->adopted || probe_process(c.pid, c.kept->keeper_token) == process_presence::alive)
        ::kill(c.pid, SIGTERM);
    } else {
      c.kill_deadline = std::min(c.kill_deadline, now + grace + opt.keeper_margin_ms);
    }
    return;
  }
  if (!c.terminating) {
    c.terminating = true;
    c.kill_deadline = now + grace;
    ::kill(-c.pid, SIGTERM);
  } else {
    c.kill_deadline = std::min(c.kill_deadline, now + grace);
  }
  if (c.reaped)
    c.linger_deadline = std::max(c.linger_deadline, c.kill_deadline + opt.orphan_drain_ms);
}

void process_reactor::impl::start_termination(lingering_group& g, int64_t grace, int64_t now) {
  if (g.killed)
    return;
  if (!g.terminating) {
    g.terminating = true;
    g.kill_deadline = now + grace;
    ::kill(-g.pgid, SIGTERM);
  } else {
    g.kill_deadline = std::min(g.kill_deadline, now + grace);
  }
}

void process_reactor::impl::run_command(command& cmd, int64_t now) {
  switch (cmd.what) {
    case command::kind::add_child: {
      auto rec = std::make_unique<child_record>(cmd.id, cmd.child, cmd.line_cap);
      rec->sink = std::move(cmd.sink);
      rec->silence_ms = cmd.silence_ms;
      rec->flow_window = cmd.flow_window;
      rec->last_activity = now;
      rec->next_tick = now + cmd.silence_ms;
      if (use_pidfd) {
        rec->pidfd = open_pidfd(rec->pid);
        if (rec->pidfd >= 0)
          watch_fd(rec->pidfd, key(rec->id, tag_pidfd));
      }
      watch_fd(rec->out.fd, key(rec->id, tag_stdout));
      watch_fd(rec->err.fd, key(rec->id, tag_stderr));
      if (!cmd.attempt_dir.empty())
        rec->kept = std::make_unique<kept_state>(cmd.attempt_dir, cmd.line_cap);
      child_record& c = *rec;
      children.emplace(c.id, std::move(rec));
      if (c.kept)
        start_kept(c, now);
      if (shutting_down && mode == shutdown_mode::terminate_children)
        start_termination(c, opt.default_grace_ms, now);
      break;
    }
    case command::kind::adopt: {
      spawned_child none;
      none.pid = cmd.child.pid;
      auto rec = std::make_unique<child_record>(cmd.id, none, default_line_cap);
      rec->sink = std::move(cmd.sink);
      rec->silence_ms = cmd.silence_ms;
      rec->flow_window = cmd.flow_window;
      rec->last_activity = now;
      rec->next_tick = now + cmd.silence_ms;
      // The spool's line cap is the keeper's, as its keeper.json says.
      std::size_t cap = default_line_cap;
      auto record = read_keeper_record(cmd.attempt_dir);
      if (record.is_ok() && record->line_cap > 0)
        cap = static_cast<std::size_t>(record->line_cap);
      rec->kept = std::make_unique<kept_state>(cmd.attempt_dir, cap);
      rec->kept->adopted = true;
      rec->kept->keeper_token = std::move(cmd.keeper_token);
      if (record.is_ok()) {
        rec->kept->record = std::move(*record);
        rec->kept->have_record = true;
      }
      if (use_pidfd) {
        rec->pidfd = open_pidfd(rec->pid);
        if (rec->pidfd >= 0)
          watch_fd(rec->pidfd, key(rec->id, tag_pidfd));
      }
      child_record& c = *rec;
      children.emplace(c.id, std::move(rec));
      start_kept(c, now);
      if (shutting_down && mode == shutdown_mode::terminate_children)
        start_termination(c, opt.default_grace_ms, now);
      break;
    }
    case command::kind::launch_failed: {
      process_exit ex;
      ex.id = cmd.id;
      ex.kind = exit_kind::launch_failed;
      ex.exit_code = launch_failure_exit_code;
      ex.reason = std::move(cmd.reason);
      guarded([&] { cmd.sink->on_exit(ex); });
      break;
    }
    case command::kind::terminate: {
      int64_t grace = cmd.grace_ms < 0 ? opt.default_grace_ms : cmd.grace_ms;
      if (auto it = children.find(cmd.id); it != children.end()) {
        start_termination(*it->second, grace, now);
      } else if (auto lg = lingering.find(cmd.id); lg != lingering.end()) {
        if (group_alive(lg->second.pgid))
          start_termination(lg->second, grace, now);
        else
          lingering.erase(lg);
      }
      break;
    }
    case command::kind::acknowledge: {
      auto it = children.find(cmd.id);
      if (it == children.end())
        break;
      child_record& c = *it->second;
      c.unacked -= std::min(cmd.bytes, c.unacked);
      if (c.paused && c.unacked < c.flow_window / 2)
        resume(c, now);
      break;
    }
    case command::kind::shutdown: {
      if (shutting_down)
        break;
      shutting_down = true;
      mode = cmd.mode;
      if (mode == shutdown_mode::terminate_children) {
        for (auto& [id, c] : children)
          start_termination(*c, opt.default_grace_ms, now);
        for (auto& [id, g] : lingering)
          if (group_alive(g.pgid))
            start_termination(g, opt.default_grace_ms, now);
      }
      break;
    }
  }
}

void process_reactor::impl::run_commands(int64_t now) {
  uint64_t counter = 0;
  ssize_t n = ::read(evfd, &counter, sizeof counter);
  (void) n;
  std::vector<command> batch;
  {
    std::lock_guard<std::mutex> guard(mu);
    batch.swap(queue);
  }
  for (auto& cmd : batch)
    run_command(cmd, now);
}

// --- timers ---------------------------------------------------------------

int process_reactor::impl::compute_timeout(int64_t now) const {
  int64_t next = std::numeric_limits<int64_t>::max();
  bool need_sweep = false;
  for (const auto& [id, cp] : children) {
    const child_record& c = *cp;
    if (c.kept) {
      next = std::min(next, c.reaped ? now + 20 : next_kept_poll);
      if (!c.reaped && c.pidfd < 0)
        need_sweep = true;
      if (c.terminating && !c.killed)
        next = std::min(next, c.kill_deadline);
      continue;
    }
    if (!c.reaped) {
      if (c.silence_ms > 0)
        next = std::min(next, c.next_tick);
      if (c.pidfd < 0)
        need_sweep = true;
    } else {
      next = std::min(next, c.linger_deadline);
      next = std::min(next, now + 20); // poll for the group's end
    }
    if (c.terminating && !c.killed)
      next = std::min(next, c.kill_deadline);
  }
  for (const auto& [id, g] : lingering)
    if (g.terminating && !g.killed)
      next = std::min(next, g.kill_deadline);
  if (need_sweep)
    next = std::min(next, next_sweep);
  if (next == std::numeric_limits<int64_t>::max())
    return -1;
  return static_cast<int>(std::clamp<int64_t>(next - now, 0, 60000));
}

void process_reactor::impl::run_timers(int64_t now, bool sigchld) {
  bool sweep = sigchld || now >= next_sweep;
  if (sweep)
    next_sweep = now + opt.sweep_interval_ms;
  bool kept_poll = now >= next_kept_poll;
  if (kept_poll)
    next_kept_poll = now + opt.kept_poll_ms;
  std::vector<child_id> done;
  for (auto& [id, cp] : children) {
    child_record& c = *cp;
    if (c.kept) {
      if (!c.reaped && c.pidfd < 0 && sweep)
        try_reap(c, now);
      if (c.terminating && !c.killed && now >= c.kill_deadline) {
        c.killed = true;
        if (!c.reaped &&
            (!c.kept->adopted ||
             probe_process(c.pid, c.kept->keeper_token) == process_presence::alive))
          ::kill(c.pid, SIGKILL);
        kill_kept_agent(c);
      }
      if (kept_poll || c.reaped)
        poll_kept(c, now);
      if (c.reaped && c.kept->drained)
        done.push_back(id);
      else if (!c.reaped && !c.paused && c.silence_ms > 0 && now >= c.next_tick) {
        process_silence tick{c.id, now - c.last_activity};
        c.next_tick = now + c.silence_ms;
        guarded([&] { c.sink->on_silence(tick); });
      }
      continue;
    }
    if (!c.reaped && c.pidfd < 0 && sweep)
      try_reap(c, now);
    if (c.terminating && !c.killed && now >= c.kill_deadline) {
      c.killed = true;
      ::kill(-c.pid, SIGKILL);
    }
    if (!c.reaped) {
      if (c.paused) {
        c.next_tick = now + c.silence_ms;
        continue;
      }
      if (c.silence_ms > 0 && now >= c.next_tick) {
        process_silence tick{c.id, now - c.last_activity};
        c.next_tick = now + c.silence_ms;
        guarded([&] { c.sink->on_silence(tick); });
      }
      continue;
    }
    bool pipes_closed = c.out.fd < 0 && c.err.fd < 0;
    if (pipes_closed || now >= c.linger_deadline || !group_alive(c.pid))
      done.push_back(id);
  }
  for (child_id id : done) {
    auto it = children.find(id);
    finalize(*it->second, now);
    children.erase(it);
  }
  for (auto it = lingering.begin(); it != lingering.end();) {
    lingering_group& g = it->second;
    if (g.terminating && !g.killed && now >= g.kill_deadline) {
      g.killed = true;
      ::kill(-g.pgid, SIGKILL);
    }
    if (g.killed || (shutting_down && !group_alive(g.pgid)))
      it = lingering.erase(it);
    else
      ++it;
  }
  // Keep the lingering list from growing with groups that ended quietly.
  if (lingering.size() > 256)
    for (auto it = lingering.begin(); it != lingering.end();)
      it = group_alive(it->second.pgid) ? std::next(it) : lingering.erase(it);
}

bool process_reactor::impl::finished() const {
  if (!shutting_down)
    return false;
  if (mode == shutdown_mode::detach_children)
    return true;
  if (!children.empty())
    return false;
  for (const auto& [id, g] : lingering)
    if (g.terminating && !g.killed)
      return false;
  return true;
}

void process_reactor::impl::detach_all() {
  for (auto& [id, c] : children) {
    if (c->kept && c->kept->wd >= 0)
      ::inotify_rm_watch(infd, c->kept->wd);
    unwatch_close(c->out.fd);
    unwatch_close(c->err.fd);
    unwatch_close(c->pidfd);
    running->fetch_sub(1);
  }
  children.clear();
}

void process_reactor::impl::loop() {
  if (sigfd >= 0) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
  }
  epoll_event events[64];
  while (true) {
    int64_t now = steady_ms();
    int timeout = compute_timeout(now);
    int n = ::epoll_wait(epfd, events, 64, timeout);
    now = steady_ms();
    bool commands = false;
    bool sigchld = false;
    for (int i = 0; i < n; ++i) {
      uint64_t k = events[i].data.u64;
      uint64_t tag = k & 3u;
      child_id id = k >> 2;
      if (tag == tag_control) {
        if (id == 0) {
          commands = true;
        } else if (id == 1) {
          signalfd_siginfo info;
          while (::read(sigfd, &info, sizeof info) > 0) {
          }
          sigchld = true;
        } else {
          read_notifications(now);
        }
        continue;
      }
      auto it = children.find(id);
      if (it == children.end())
        continue;
      child_record& c = *it->second;
      if (tag == tag_stdout && c.out.fd >= 0)
        read_once(c, c.out, now);
      else if (tag == tag_stderr && c.err.fd >= 0)
        read_once(c, c.err, now);
      else if (tag == tag_pidfd)
        try_reap(c, now);
    }
    if (commands)
      run_commands(now);
    run_timers(now, sigchld);
    if (finished()) {
      if (mode == shutdown_mode::detach_children)
        detach_all();
      return;
    }
  }
}

} // namespace ad::runtime
