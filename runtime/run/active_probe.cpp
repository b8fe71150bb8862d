#include "runtime/run/active_probe.hpp"
#include "runtime/run/stage_steps.hpp"

#include <algorithm>
#include <optional>
#include <system_error>
#include <vector>

#include "runtime/agents/attempt_locator.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/keeper/keeper_liveness.hpp"
#include "runtime/keeper/keeper_records.hpp"
#include "runtime/process/liveness.hpp"
#include "runtime/workspace/checklist.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// What adopting the attempt of `loc` needs: its locator's facts and its
// keeper's record in `dir` (else the locator's note of the keeper).
struct kept_reading {
  kept_attempt attempt;
  int64_t agent_pid = 0;  // from the keeper's record; 0 when none
};

kept_reading kept_from(const attempt_locator& loc, const fs::path& dir) {
  kept_reading out;
  auto rec = read_keeper_record(dir);
  auto exit = read_exit_record(dir);
  auto& k = out.attempt;
  k.identity = loc.identity;
  k.plan_number = loc.plan_number;
  k.attempt = loc.attempt;
  k.role = loc.role;
  k.cli = loc.cli;
  k.model = loc.model;
  k.plan_path = loc.plan_path.value_or("");
  k.review_path = loc.review_path.value_or("");
  k.keeper_pid = rec.is_ok() ? rec->keeper_pid : loc.keeper_pid.value_or(0);
  k.keeper_start_token = rec.is_ok() ? rec->keeper_start_token : loc.keeper_start_token.value_or("");
  k.ended = exit.is_ok() && exit->state == keeper_exit_state::ended;
  out.agent_pid = rec.is_ok() ? rec->agent_pid : 0;
  return out;
}

} // namespace

result<attempt_locator> read_locator_file(const fs::path& path) {
  auto text = read_file(path, 1 << 20);
  if (!text.is_ok())
    return text.error();
  auto doc = parse_json(*text, path.string());
  if (!doc.is_ok())
    return doc.error();
  return locator_from_json(*doc);
}

fs::path find_attempt_locator(const fs::path& runs_dir, const std::string& task, int64_t plan,
                              const std::string& role, int64_t attempt) {
  std::string suffix = "__" + make_attempt_identity(task, plan, role, attempt);
  std::error_code ec;
  std::vector<fs::path> found;
  for (fs::directory_iterator it(runs_dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto name = it->path().filename().string();
    if (ends_with(name, suffix) && fs::exists(it->path() / "locator.json", ec))
      found.push_back(it->path() / "locator.json");
  }
  if (found.empty())
    return {};
  std::sort(found.begin(), found.end());
  return found.back(); // the stamp sorts by time
}

active_probe probe_active_stage(const std::string& task, const task_state& st,
                                const state_model& state, const run_location& where,
                                const clock& clk) {
  active_probe out;
  fs::path locator_path = st.active_locator;
  if (locator_path.empty()) {
    int64_t plan = 0;
    int64_t attempt = 0;
    for (const auto& [key, value] : task_attempt_counters(state, task))
      if (key.role == st.active_stage && value > 0 &&
          (key.plan > plan || (key.plan == plan && value > attempt))) {
        plan = key.plan;
        attempt = value;
      }
    if (attempt > 0)
      locator_path = find_attempt_locator(where.runs_dir, task, plan, st.active_stage, attempt);
  }
  if (locator_path.empty()) {
    out.reason = "no attempt record found for the active " + st.active_stage + " stage";
    return out;
  }
  out.locator = locator_path.string();
  auto loc = read_locator_file(locator_path);
  if (!loc.is_ok()) {
    out.reason = "attempt record unreadable: " + loc.error().message();
    return out;
  }
  out.locator_status = std::string(to_string(loc->status));

  locator_home ws{where.workspace, where.workspace_id, where.runs_dir};
  auto owner = probe_locator_ownership(
    locator_claim{locator_path, loc->workspace_id, loc->workspace}, ws);
  if (owner.kind == locator_ownership_kind::foreign) {
    out.reason = "foreign attempt record ignored: " + owner.reason;
    return out;
  }
  out.owned = true;

  // An agent under its keeper: the keeper's own record (or the locator's
  // note of its pid, before the keeper wrote one) names who holds the
  // attempt. A keeper alive, or one that recorded the agent's end, hands
  // the attempt over; one that died silently leaves it to the rules below.
  // On a worker node: only that node can tell whether its keeper runs; the
  // attempt is adopted through it (docs/distributed.md).
  if (out.locator_status == "running" && loc->node && !loc->node->empty()) {
    auto kept = kept_from(*loc, locator_path.parent_path());
    out.kind = active_probe_kind::kept;
    out.reason = "it runs on node " + *loc->node + ", which is asked for it";
    out.kept = std::move(kept.attempt);
    out.kept.node = *loc->node;
    return out;
  }
  if (out.locator_status == "running") {
    auto kept = kept_from(*loc, locator_path.parent_path());
    const auto& k = kept.attempt;
    if (k.keeper_pid > 0) {
      bool alive = probe_process(static_cast<int>(k.keeper_pid), k.keeper_start_token) ==
                   process_presence::alive;
      if (alive || k.ended) {
        out.kind = active_probe_kind::kept;
        out.reason = alive ? "its keeper (pid " + std::to_string(k.keeper_pid) + ") runs" +
                               (kept.agent_pid > 0 ? ", agent pid " + std::to_string(kept.agent_pid)
                                                   : std::string())
                           : "its keeper recorded the agent's end while no dispatcher ran";
        out.kept = std::move(kept.attempt);
        return out;
      }
    }
  }

  liveness_probe_input in;
  in.locator_status = out.locator_status;
  in.agent_pid = static_cast<int>(loc->agent_pid.value_or(0));
  in.agent_start_token = loc->agent_start_token.value_or("");
  in.dispatcher_pid = static_cast<int>(loc->dispatcher_pid);
  in.dispatcher_start_token = loc->dispatcher_start_token;
  in.marker = loc->process_marker;
  if (loc->native_session_path)
    in.native_session_path = *loc->native_session_path;
  in.stream_log_path = loc->stream_log;
  auto verdict = judge_liveness(probe_liveness(in, clk));
  out.kind = verdict.kind == liveness_kind::live ? active_probe_kind::live
                                                 : active_probe_kind::stale;
  out.reason = verdict.reason;
  return out;
}

int remove_attempt_logs(const fs::path& runs_dir, const std::string& task) {
  std::string needle = "__" + safe_task_name(task) + "__p";
  std::error_code ec;
  std::vector<fs::path> doomed;
  for (fs::directory_iterator it(runs_dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto name = it->path().filename().string();
    auto first = name.find("__");
    if (first != std::string::npos && name.compare(first, needle.size(), needle) == 0)
      doomed.push_back(it->path());
  }
  int removed = 0;
  for (const auto& p : doomed) {
    std::error_code rm;
    fs::remove_all(p, rm);
    if (!rm)
      ++removed;
  }
  return removed;
}

} // namespace ad::runtime

namespace ad::runtime {

std::string_view to_string(active_probe_kind kind) {
  switch (kind) {
    case active_probe_kind::live: return "live";
    case active_probe_kind::kept: return "kept";
    case active_probe_kind::stale: break;
  }
  return "stale";
}

namespace {

// The stage step of a worker or self-check attempt whose locator says it
// succeeded; nullopt when the stage must simply resume.
std::optional<stage_step> finish_from_locator(const active_stage_reading& r, const policy& pol) {
  if (!r.probe.owned || r.probe.locator_status != "succeeded" || !r.locator_read ||
      r.locator_role != r.state.active_stage)
    return std::nullopt;
  if (r.state.active_stage == "worker") {
    attempt_identity ran;
    ran.cli = r.locator_cli;
    ran.model = r.locator_model;
    return after_worker_success(r.task, r.state, pol, ran);
  }
  if (r.state.active_stage == "selfcheck" && r.checklist_read)
    return after_selfcheck_success(r.task, r.state, pol, r.checklist);
  return std::nullopt;
}

} // namespace

std::vector<active_stage_reading> read_active_stages(const state_model& state,
                                                     const run_location& where, const clock& clk,
                                                     const std::set<std::string>& skip) {
  std::vector<active_stage_reading> out;
  for (const auto& [name, st] : state.tasks) {
    if (st.active_stage.empty() || skip.count(name))
      continue;
    active_stage_reading r;
    r.task = name;
    r.state = st;
    r.probe = probe_active_stage(name, st, state, where, clk);
    if (r.probe.kind == active_probe_kind::stale && r.probe.owned &&
        r.probe.locator_status == "succeeded") {
      if (auto loc = read_locator_file(r.probe.locator); loc.is_ok()) {
        r.locator_read = true;
        r.locator_role = loc->role;
        r.locator_cli = loc->cli;
        r.locator_model = loc->model;
        if (loc->role == "selfcheck" && loc->review_path) {
          r.checklist_read = true;
          r.checklist = read_checklist_file(*loc->review_path);
        }
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

active_review decide_active_stages(const std::vector<active_stage_reading>& readings,
                                   const policy* pol) {
  active_review out;
  for (const auto& r : readings) {
    const auto& stage = r.state.active_stage;
    if (r.probe.kind == active_probe_kind::live) {
      out.live[r.task] = stage + " attempt alive: " + r.probe.reason;
      continue;
    }
    if (r.probe.kind == active_probe_kind::kept && r.probe.kept.role == stage) {
      out.adopt.push_back({r.task, stage, r.probe.locator, r.probe.kept});
      continue;
    }
    if (pol)
      if (auto step = finish_from_locator(r, *pol)) {
        out.changes.insert(out.changes.end(), step->changes.begin(), step->changes.end());
        out.finished.push_back(r.task + ": " + stage + " finished from its locator" +
                               (step->reason.empty() ? "" : " (" + step->reason + ")"));
        continue;
      }
    out.changes.push_back(clear_active_stage{r.task});
    out.cleared.push_back(r.task + ": " + r.probe.reason);
  }
  return out;
}

active_review review_active_stages(const state_model& state, const run_location& where,
                                   const clock& clk, const std::set<std::string>& skip,
                                   const policy* pol) {
  return decide_active_stages(read_active_stages(state, where, clk, skip), pol);
}

} // namespace ad::runtime
