#include "runtime/process/liveness.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cctype>
#include <system_error>

#include "runtime/core/files.hpp"
#include "runtime/process/process_events.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

pid_liveness probe_pid(int pid, std::string_view expected_token, const fs::path& proc_root) {
  if (pid <= 0)
    return pid_liveness::dead;
  auto token = process_start_token(pid, proc_root);
  if (!token)
    return pid_liveness::dead;
  if (!expected_token.empty() && *token != expected_token)
    return pid_liveness::dead;
  return pid_liveness::alive;
}

group_liveness probe_process_group(int pgid, const fs::path& proc_root) {
  if (pgid <= 0)
    return group_liveness::gone;
  if (proc_root == "/proc" && ::kill(-pgid, 0) != 0 && errno == ESRCH)
    return group_liveness::gone;
  std::error_code ec;
  if (!fs::is_directory(proc_root, ec))
    return group_liveness::alive; // cannot tell: assume it runs
  for (const auto& e : list_processes(proc_root))
    if (e.pgid == pgid)
      return group_liveness::alive;
  return group_liveness::gone;
}

// --- ownership ---------------------------------------------------------------

namespace {

bool path_inside(const fs::path& inner, const fs::path& outer) {
  fs::path a = inner.lexically_normal();
  fs::path b = outer.lexically_normal();
  if (b.empty())
    return false;
  auto ai = a.begin();
  for (auto bi = b.begin(); bi != b.end(); ++bi, ++ai) {
    if (bi->empty() && std::next(bi) == b.end())
      break; // trailing separator of the outer path
    if (ai == a.end() || *ai != *bi)
      return false;
  }
  return ai != a.end(); // strictly inside
}

} // namespace

locator_ownership judge_locator_ownership(const locator_claim& claim,
                                          const locator_home& workspace) {
  if (!path_inside(claim.locator_path, workspace.runs_dir))
    return {locator_ownership_kind::foreign,
            "foreign locator path: " + claim.locator_path.string() +
              " is outside the runs folder " + workspace.runs_dir.string()};
  if (claim.workspace_id.empty())
    return {locator_ownership_kind::foreign, "locator names no workspace id"};
  if (claim.workspace_id != workspace.id)
    return {locator_ownership_kind::foreign, "foreign locator workspace id: recorded=" +
                                               claim.workspace_id + " expected=" + workspace.id};
  if (claim.workspace_root.empty())
    return {locator_ownership_kind::foreign, "locator names no workspace root"};
  if (fs::path(claim.workspace_root).lexically_normal() != workspace.root.lexically_normal())
    return {locator_ownership_kind::foreign, "foreign locator workspace root: recorded=" +
                                               claim.workspace_root +
                                               " expected=" + workspace.root.string()};
  return {locator_ownership_kind::owned, {}};
}

locator_ownership probe_locator_ownership(locator_claim claim,
                                          const locator_home& workspace) {
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(claim.locator_path, ec);
  if (!ec)
    claim.locator_path = resolved;
  if (!claim.workspace_root.empty()) {
    fs::path root = fs::weakly_canonical(claim.workspace_root, ec);
    if (!ec)
      claim.workspace_root = root.string();
  }
  locator_home ws = workspace;
  fs::path runs = fs::weakly_canonical(ws.runs_dir, ec);
  if (!ec)
    ws.runs_dir = runs;
  return judge_locator_ownership(claim, ws);
}

// --- the rule ----------------------------------------------------------------

liveness_verdict judge_liveness(const liveness_evidence& ev) {
  liveness_verdict v;
  if (!ev.locator_status.empty() && ev.locator_status != "running") {
    v.basis = liveness_basis::not_running;
    v.reason = "locator status is " + ev.locator_status;
    return v;
  }
  if (ev.agent.recorded == evidence_presence::present && ev.agent.state == pid_liveness::alive) {
    v.kind = liveness_kind::live;
    v.basis = liveness_basis::agent_pid;
    v.reason = "agent pid alive with the same start token";
    return v;
  }
  if (ev.dispatcher.recorded == evidence_presence::present &&
      ev.dispatcher.state == pid_liveness::alive) {
    v.kind = liveness_kind::live;
    v.basis = liveness_basis::dispatcher_pid;
    v.reason = "dispatcher pid alive with the same start token";
    return v;
  }
  if (!ev.marker.empty()) {
    if (!ev.marker_pids.empty()) {
      v.kind = liveness_kind::live;
      v.basis = liveness_basis::marker;
      v.reason = "process carrying the marker: pid";
      for (std::size_t i = 0; i < ev.marker_pids.size(); ++i)
        v.reason += (i == 0 ? " " : ",") + std::to_string(ev.marker_pids[i]);
      return v;
    }
    v.basis = liveness_basis::marker_absent;
    v.reason = "no process carries the marker " + ev.marker;
    return v;
  }
  if (ev.agent.recorded == evidence_presence::present) {
    v.basis = liveness_basis::agent_gone;
    v.reason = "recorded agent pid is no longer alive";
    return v;
  }
  if (ev.native_session == evidence_presence::present ||
      ev.stream_log == evidence_presence::present) {
    v.kind = liveness_kind::live;
    v.basis = liveness_basis::files_without_pid;
    v.idle_ms = std::max<millis>(0, ev.now - ev.last_progress);
    v.reason = std::string(ev.native_session == evidence_presence::present ? "native session"
                                                                           : "stream") +
               " files exist without pid evidence, idle " + std::to_string(v.idle_ms / 1000) +
               "s; kept live (no time-based recovery)";
    return v;
  }
  v.reason = "no pid, marker or file evidence";
  return v;
}

namespace {

// mtime in ms of a regular file, or -1.
millis file_mtime(const fs::path& p) {
  struct stat st {};
  if (p.empty() || ::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return -1;
  return static_cast<millis>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

// The newest *.jsonl of a folder, or the file itself: its mtime, or -1.
millis native_session_mtime(const fs::path& p) {
  if (p.empty())
    return -1;
  std::error_code ec;
  if (!fs::is_directory(p, ec))
    return file_mtime(p);
  millis newest = -1;
  for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".jsonl")
      newest = std::max(newest, file_mtime(it->path()));
  }
  return newest;
}

} // namespace

liveness_evidence probe_liveness(const liveness_probe_input& in, const clock& clk,
                                 const fs::path& proc_root) {
  liveness_evidence ev;
  ev.locator_status = in.locator_status;
  if (in.agent_pid > 0) {
    ev.agent.recorded = evidence_presence::present;
    ev.agent.state = probe_pid(in.agent_pid, in.agent_start_token, proc_root);
  }
  if (in.dispatcher_pid > 0) {
    ev.dispatcher.recorded = evidence_presence::present;
    ev.dispatcher.state = probe_pid(in.dispatcher_pid, in.dispatcher_start_token, proc_root);
  }
  ev.marker = in.marker;
  // The marker scan reads every process's environment: run it only when the
  // rule, given the locator status and the pids, gets as far as the marker.
  if (judge_liveness(ev).basis == liveness_basis::marker_absent)
    ev.marker_pids = processes_with_marker(in.marker, proc_root);
  millis native = native_session_mtime(in.native_session_path);
  millis stream = file_mtime(in.stream_log_path);
  if (!in.stream_log_path.empty()) // past its head, the log grows in its tail segment
    stream = std::max(stream, file_mtime(in.stream_log_path.string() + std::string(retained_tail_suffix)));
  ev.native_session = native >= 0 ? evidence_presence::present : evidence_presence::absent;
  ev.stream_log = stream >= 0 ? evidence_presence::present : evidence_presence::absent;
  ev.last_progress = std::max<millis>({native, stream, 0});
  ev.now = clk.now();
  return ev;
}

} // namespace ad::runtime
