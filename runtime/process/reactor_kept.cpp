#include "runtime/process/reactor_impl.hpp"

#include <csignal>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "runtime/keeper/containment.hpp"
#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/keeper_liveness.hpp"
#include "runtime/process/liveness.hpp"

// The reactor's kept children: an agent started under ad-keeper (or adopted
// from an earlier dispatcher), whose output the reactor reads from the
// keeper's spool in the attempt folder, woken by inotify on that folder and
// a periodic poll, and whose end it reads from the keeper's exit record.

namespace ad::runtime {

using namespace reactor_detail;

namespace {

// The most bytes of lines one read of a kept child's spool delivers.
constexpr std::size_t kept_batch_bytes = 256 << 10;

} // namespace

void process_reactor::impl::start_kept(child_record& c, int64_t now) {
  auto& k = *c.kept;
  if (infd >= 0) {
    k.wd = ::inotify_add_watch(infd, k.attempt_dir.c_str(),
                               IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO);
    if (k.wd >= 0)
      watched_dirs[k.wd] = c.id;
  }
  if (k.adopted && probe_process(c.pid, k.keeper_token) == process_presence::gone)
    mark_reaped(c, 0, now); // gone before we came: its spool and exit record remain
  poll_kept(c, now);
}

void process_reactor::impl::poll_kept(child_record& c, int64_t now, bool look_for_record) {
  if (!c.kept || c.paused || c.kept->drained)
    return;
  auto& k = *c.kept;
  if (!k.have_record && look_for_record) {
    if (auto rec = read_keeper_record(k.attempt_dir); rec.is_ok()) {
      k.record = std::move(*rec);
      k.have_record = true;
    }
  }
  if (k.have_record && !k.agent_reported) {
    k.agent_reported = true;
    process_agent agent{c.id, k.record.agent_pid, k.record.agent_start_token};
    guarded([&] { c.sink->on_agent(agent); });
  }
  // The keeper has written its spool when it exits: read after its end, caught
  // up means read to the end.
  const bool ended = c.reaped;
  for (int i = 0; i < 64; ++i) {
    auto batch = k.follower.poll(kept_batch_bytes);
    if (!batch.is_ok()) {
      if (ended)
        k.drained = true; // nothing more can be read: end with what was delivered
      return;
    }
    if (!batch->lines.empty()) {
      c.last_activity = now;
      c.next_tick = now + c.silence_ms;
    }
    for (auto& l : batch->lines) {
      c.unacked += l.text.size() + 1;
      process_line line{c.id,
                        l.channel == spool_channel::out ? output_stream::stdout_stream
                                                        : output_stream::stderr_stream,
                        std::move(l.text),
                        l.cut == spool_cut::truncated ? line_cut::truncated : line_cut::whole,
                        l.dropped_bytes};
      guarded([&] { c.sink->on_line(std::move(line)); });
    }
    if (c.flow_window > 0 && c.unacked >= c.flow_window) {
      pause(c);
      return;
    }
    if (batch->progress == follow_progress::caught_up) {
      if (ended)
        k.drained = true;
      return;
    }
  }
}

void process_reactor::impl::read_notifications(int64_t now) {
  alignas(inotify_event) char events[4096];
  // Per child touched: whether an event named the keeper's record. Events
  // for files the follower does not read (the dispatcher's own locator and
  // logs beside the spool) wake nothing: the periodic poll stays the net.
  std::map<child_id, bool> touched;
  for (;;) {
    ssize_t n = ::read(infd, events, sizeof events);
    if (n <= 0)
      break;
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(events + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      auto it = watched_dirs.find(e->wd);
      if (it == watched_dirs.end())
        continue;
      // The name is padded with NULs; an event without one is the folder's own.
      std::string_view name(e->name, ::strnlen(e->name, e->len));
      auto change = e->len == 0 ? kept_file_change::spool : classify_kept_file(name);
      if (change == kept_file_change::none)
        continue;
      touched[it->second] |= change == kept_file_change::record;
    }
  }
  for (const auto& [id, record] : touched)
    if (auto it = children.find(id); it != children.end())
      poll_kept(*it->second, now, record);
}

void process_reactor::impl::kill_kept_agent(child_record& c) {
  auto& k = *c.kept;
  if (!k.have_record) {
    auto rec = read_keeper_record(k.attempt_dir);
    if (!rec.is_ok())
      return; // the keeper never started an agent
    k.record = std::move(*rec);
    k.have_record = true;
  }
  // Nothing the agent started may outlive the keeper that should have ended
  // it: the agent's group, every process carrying its marker (the marker is
  // the attempt's alone), and the attempt's cgroup.
  std::vector<int> marked;
  if (!k.record.marker.empty())
    marked = processes_with_marker(k.record.marker);
  // The agent may be gone already (its parent-death signal) while a process
  // it started lives on in its group: a live member carrying the marker
  // shows that the group is still the agent's (a pid in use as a group id
  // is not given to a new process).
  bool ours = k.record.agent_pgid > 0 && probe_agent(k.record) == process_presence::alive;
  for (int pid : marked)
    if (!ours && k.record.agent_pgid > 0 && ::getpgid(pid) == k.record.agent_pgid)
      ours = true;
  if (ours)
    ::kill(-k.record.agent_pgid, SIGKILL);
  for (int pid : marked)
    ::kill(pid, SIGKILL);
  if (!k.record.cgroup.empty() && kill_cgroup(k.record.cgroup)) {
    // Killed members leave the cgroup a moment later (a rare path: a bounded
    // wait of the reactor thread).
    for (int i = 0; i < 50 && cgroup_populated(k.record.cgroup); ++i)
      ::usleep(2000);
    (void) remove_cgroup(k.record.cgroup);
  }
}

process_exit process_reactor::impl::kept_exit(child_record& c) {
  auto& k = *c.kept;
  process_exit ex;
  ex.id = c.id;
  ex.pid = k.have_record ? k.record.agent_pid : c.pid;
  ex.lost_lines = k.follower.totals().lost_lines;
  auto exit = read_exit_record(k.attempt_dir);
  if (exit.is_ok() && exit->state == keeper_exit_state::ended) {
    const auto& r = exit->record;
    ex.exit_code = r.exit_code;
    ex.signal = r.signal;
    ex.reason = r.reason;
    ex.kind = r.end == keeper_end::signaled        ? exit_kind::signaled
              : r.end == keeper_end::launch_failed ? exit_kind::launch_failed
                                                   : exit_kind::exited;
    if (ex.kind == exit_kind::launch_failed)
      ex.pid = 0;
    return ex;
  }
  // The keeper ended without saying how its agent did (it was killed, or
  // its record cannot be read): the agent must not outlive it.
  kill_kept_agent(c);
  ex.kind = exit_kind::signaled;
  ex.signal = SIGKILL;
  ex.exit_code = 128 + SIGKILL;
  ex.reason = "the agent's keeper ended before it recorded the agent's end" +
              (exit.is_ok() ? std::string() : " (" + exit.error().message() + ")");
  return ex;
}

} // namespace ad::runtime
