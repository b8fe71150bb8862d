#include "runtime/run/admission_quota.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/policy/selection.hpp"
#include "runtime/process/spawn.hpp"

namespace ad::runtime {

std::vector<probe_request> admission_probe_requests(const policy& pol, const time_zone& zone,
                                                    const std::vector<admitted_worker>& workers,
                                                    millis now) {
  std::vector<probe_request> out;
  for (const auto& w : workers) {
    const task_state* st = w.state;
    auto decision = st ? st->decisions.find("worker") : std::map<std::string, route_decision>::const_iterator{};
    bool decided = st && decision != st->decisions.end();
    probe_request req;
    req.task = w.task;
    if (st && st->handoff && decided) {
      req.mode = probe_request::kind::retry_handoff;
      for (const auto& c : decision->second.candidates)
        req.candidate_ids.push_back(c.target);
      req.used_ids = {st->handoff->failed_target};
      out.push_back(std::move(req));
      continue;
    }
    if (decided)
      continue; // a persisted decision is reused, not selected again
    auto rule = match_rule(pol, zone, "worker", w.lane, std::clamp(w.grade, 1, 10), now);
    if (!rule.is_ok())
      continue; // selection reports it
    req.candidate_ids = (*rule)->candidates;
    out.push_back(std::move(req));
  }
  return out;
}

quota_snapshot merge_quota(const quota_snapshot& admission, const quota_snapshot* task_quota) {
  quota_snapshot out = admission;
  if (task_quota == nullptr)
    return out;
  for (const auto& [target, status] : task_quota->status_by_target)
    if (status == quota_exhausted_for_work_unit || !out.status_by_target.count(target))
      out.status_by_target[target] = status;
  if (out.taken_at == 0)
    out.taken_at = task_quota->taken_at;
  return out;
}

json probe_plan_to_json(const std::vector<planned_probe>& plan) {
  json out = json::array();
  for (const auto& p : plan)
    out.push_back({{"argv", p.argv}, {"targets", p.target_ids}});
  return out;
}

result<std::vector<planned_probe>> probe_plan_from_json(const json& j) {
  if (!j.is_array())
    return status::invalid_argument("quota probe plan: not an array");
  std::vector<planned_probe> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const json& e = j[i];
    auto strings = [&](const char* key, std::vector<std::string>& into) {
      if (!e.is_object() || !e.contains(key) || !e[key].is_array())
        return false;
      for (const auto& s : e[key]) {
        if (!s.is_string())
          return false;
        into.push_back(s.get<std::string>());
      }
      return true;
    };
    planned_probe p;
    if (!strings("argv", p.argv) || !strings("targets", p.target_ids) || p.argv.empty())
      return status::invalid_argument("quota probe plan: entry " + std::to_string(i) +
                                      " needs a non-empty argv and targets");
    out.push_back(std::move(p));
  }
  return out;
}

quota_probe_runner::output process_probe_runner::run(const std::vector<std::string>& argv) {
  output out;
  spawn_request req;
  req.argv = argv;
  req.cwd = cwd_;
  auto spawned = spawn_child(req);
  if (std::holds_alternative<launch_failure>(spawned)) {
    out.exit_code = 127;
    return out;
  }
  auto child = std::get<spawned_child>(spawned);
  auto deadline = std::chrono::steady_clock::now() + timeout_;
  pollfd fds[2] = {{child.stdout_fd, POLLIN, 0}, {child.stderr_fd, POLLIN, 0}};
  int open_fds = 2;
  bool timed_out = false;
  char buf[4096];
  constexpr size_t cap = 1 << 20;
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    int n = ::poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0)
        continue;
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        if (i == 0 && out.stdout_text.size() < cap)
          out.stdout_text.append(buf, static_cast<size_t>(got));
      } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (timed_out)
    ::kill(-child.pid, SIGKILL);
  for (auto& p : fds)
    if (p.fd >= 0)
      ::close(p.fd);
  int status = 0;
  // The pipes closed: the probe is ending; a timed-out one was just killed.
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    out.exit_code = 124;
  else
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

} // namespace ad::runtime
