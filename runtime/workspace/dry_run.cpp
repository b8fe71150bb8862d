#include "runtime/workspace/dry_run.hpp"

#include <algorithm>
#include <set>

#include "runtime/core/text.hpp"
#include "runtime/workspace/claim_index.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

// The archived folders with complete.log, as the listing found them.
std::vector<dry_run_task> archived_tasks(const workspace_scan& scan,
                                         const archived_listing& listing) {
  std::vector<std::string> relative;  // each place's folder, from the workspace
  relative.reserve(listing.places.size());
  for (const auto& place : listing.places)
    relative.push_back(place.dir.lexically_relative(scan.workspace).generic_string());
  std::vector<dry_run_task> out;
  out.reserve(static_cast<std::size_t>(std::count_if(
    listing.folders.begin(), listing.folders.end(), [](const auto& f) { return f.completed; })));
  for (const auto& folder : listing.folders) {
    if (!folder.completed)
      continue;
    dry_run_task t;
    t.name = listing.places[folder.place].group + "/" + folder.name;
    t.stage = "complete";
    t.route = "archive";
    t.status = dispatch_status::complete;
    t.archive_path = relative[folder.place] + "/" + folder.name;
    t.reason = "complete: archived in " + t.archive_path;
    out.push_back(std::move(t));
  }
  return out;
}

std::string action_text(task_stage stage, const scanned_task& task) {
  auto files = std::to_string(task.write_set.paths.size()) +
               (task.write_set.paths.size() == 1 ? " file" : " files");
  switch (stage) {
  case task_stage::review:
    return "would start the official review (write set " + files + ")";
  case task_stage::selfcheck:
    return "would start the self-check on " + task.route() + " (write set " + files + ")";
  default:
    return "would start the worker on " + task.route() + " (write set " + files + ")";
  }
}

} // namespace

std::string_view to_string(dispatch_status status) {
  switch (status) {
  case dispatch_status::ready: return "ready";
  case dispatch_status::waiting: return "waiting";
  case dispatch_status::blocked: return "blocked";
  case dispatch_status::user_review: return "user-review";
  case dispatch_status::running: return "running";
  case dispatch_status::complete: return "complete";
  }
  return "?";
}

dry_run_folders read_dry_run_folders(const workspace_scan& scan,
                                     const std::optional<std::string>& group) {
  dry_run_folders folders;
  // Completed tasks of the groups in scope, first: the predecessors'
  // lookups take what their listing learned of each complete.log.
  std::vector<std::string> groups = scan.groups;
  if (group && std::find(groups.begin(), groups.end(), *group) == groups.end())
    groups.push_back(*group);
  auto archived = list_archived_folders(scan.task_root, std::move(groups));
  folders.archived = archived_tasks(scan, archived);
  completed_index completed(scan.task_root, scan.tasks);
  completed.know_archived(std::move(archived));
  folders.dependencies.reserve(scan.tasks.size());
  for (const auto& task : scan.tasks)
    folders.dependencies.push_back(settled_dependencies(completed, task));
  return folders;
}

dry_run_report plan_dry_run(const dry_run_input& input) {
  dry_run_report report;
  if (input.scan == nullptr)
    return report;
  const auto& scan = *input.scan;
  report.warnings = scan.warnings;

  auto progress_of = [&](const std::string& name) {
    auto it = input.progress.find(name);
    return it == input.progress.end() ? task_progress{} : it->second;
  };

  std::set<std::string> running_names;
  for (const auto& [name, p] : input.progress)
    if (p.activity == task_activity::live && !p.active_stage.empty())
      running_names.insert(name);

  struct candidate {
    std::size_t slot;  // index into report.tasks
    task_stage stage;
    const scanned_task* task;
  };
  std::vector<candidate> ready;

  dry_run_folders read_here;
  const dry_run_folders* folders = input.folders;
  if (folders == nullptr || folders->dependencies.size() != scan.tasks.size()) {
    read_here = read_dry_run_folders(scan, input.group);
    folders = &read_here;
  }
  report.tasks.reserve(scan.tasks.size() + folders->archived.size());
  for (std::size_t i = 0; i < scan.tasks.size(); ++i) {
    const auto& task = scan.tasks[i];
    auto progress = progress_of(task.name);
    dry_run_task out;
    out.name = task.name;
    out.route = task.route();
    out.work_unit_id = task.work_unit_id();
    out.write_set = task.write_set.paths;
    for (const auto& e : task.errors)
      out.errors.push_back(e.message);
    auto running = running_predecessors(task, running_names);
    out.dependency = running ? std::move(*running) : folders->dependencies[i];
    auto stage = derive_stage(task, progress);
    out.stage = std::string(to_string(stage));

    if (progress.activity == task_activity::live && !progress.active_stage.empty()) {
      out.status = dispatch_status::running;
      out.reason = "running: stage=" + progress.active_stage +
                   (progress.active_detail.empty() ? "" : "; " + progress.active_detail);
    } else if (!task.errors.empty()) {
      out.status = dispatch_status::blocked;
      out.reason = join(out.errors, "; ");
    } else if (stage == task_stage::user_review) {
      const auto& ur = task.user_review_state;
      out.status = dispatch_status::user_review;
      out.reason = "waiting for a human (USER_REVIEW.md, " + std::string(to_string(ur.type)) +
                   ", target " + ur.target + "): " + (ur.actions.empty() ? "" : ur.actions.front());
    } else if (stage == task_stage::blocked && task.user_review) {
      out.status = dispatch_status::blocked;
      out.reason = "USER_REVIEW.md is not a complete stop request: " +
                   task.user_review_state.missing_summary();
    } else if (!progress.blocked_reason.empty()) {
      out.status = dispatch_status::blocked;
      out.reason = progress.blocked_reason;
    } else if (stage == task_stage::blocked) {
      out.status = dispatch_status::blocked;
      out.reason = "worker finished but no valid completing decision is recorded";
    } else if (out.dependency.state == dependency_status::ambiguous) {
      out.status = dispatch_status::blocked;
      out.reason = out.dependency.reason();
    } else if (out.dependency.state == dependency_status::missing ||
               out.dependency.state == dependency_status::running) {
      out.status = dispatch_status::waiting;
      out.reason = out.dependency.reason();
      out.wait = "dependency";
    } else {
      ready.push_back({report.tasks.size(), stage, &task});
    }
    report.tasks.push_back(std::move(out));
  }

  // Admission: reviews first, then workers and self-checks, in scan order.
  std::stable_partition(ready.begin(), ready.end(),
                        [](const candidate& c) { return c.stage == task_stage::review; });
  claim_index claims;
  for (const auto& [owner, claim] : input.claims)
    claims.put(owner, claim.exclusive, claim.paths);
  std::optional<std::size_t> slots;
  if (input.max_parallel > 0) {
    auto live = static_cast<int>(running_names.size());
    slots = static_cast<std::size_t>(std::max(0, input.max_parallel - live));
  }
  std::size_t selected = 0;
  for (const auto& c : ready) {
    auto& out = report.tasks[c.slot];
    const auto& task = *c.task;
    if (!task.write_set_known) {
      out.status = dispatch_status::blocked;
      out.reason = "no valid non-empty Modified Files Summary write set to claim";
      continue;
    }
    if (auto c = claims.conflict_of(task.name, task.write_set.paths)) {
      out.status = dispatch_status::waiting;
      out.reason = c->path.empty()
                     ? "exclusive claim held by " + c->owner + " (its write set is unknown)"
                     : "claim conflict with " + c->owner + " on " + c->path;
      out.wait = "claim";
      out.wait_owner = c->owner;
      continue;
    }
    if (slots && selected >= *slots) {
      out.status = dispatch_status::waiting;
      out.wait = "capacity";
      out.reason = "capacity: --max-parallel " + std::to_string(input.max_parallel) +
                   " reached (selected " + std::to_string(selected) + ")";
      continue;
    }
    claims.put(task.name, false, task.write_set.paths);
    ++selected;
    out.status = dispatch_status::ready;
    out.reason = action_text(c.stage, task);
  }

  report.tasks.insert(report.tasks.end(), folders->archived.begin(), folders->archived.end());

  auto& s = report.summary;
  s.tasks = report.tasks.size();
  for (const auto& t : report.tasks) {
    switch (t.status) {
    case dispatch_status::ready: ++s.ready; break;
    case dispatch_status::waiting: ++s.waiting; break;
    case dispatch_status::blocked: ++s.blocked; break;
    case dispatch_status::user_review: ++s.user_review; break;
    case dispatch_status::running: ++s.running; break;
    case dispatch_status::complete: ++s.complete; break;
    }
  }
  if (s.ready > 0) {
    s.exit_code = 0;
    s.message = std::to_string(s.ready) + (s.ready == 1 ? " task" : " tasks") + " ready to start";
  } else if (s.tasks == 0 && input.group) {
    s.exit_code = 2;
    s.message = "task group '" + *input.group + "' has no active task and no archived complete.log";
  } else if (s.tasks == 0) {
    s.exit_code = 0;
    s.message = "no tasks under agent-task/: nothing to do";
  } else if (s.complete == s.tasks) {
    s.exit_code = 0;
    s.message = "every task is complete";
  } else if (s.running > 0) {
    s.exit_code = 3;
    s.message = "nothing to start here; waiting on " + std::to_string(s.running) +
                " task(s) running elsewhere";
  } else {
    s.exit_code = 2;
    s.message = "nothing can run: every remaining task is blocked, waiting or needs a human";
  }
  return report;
}

} // namespace ad::runtime
