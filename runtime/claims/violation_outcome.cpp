#include "runtime/claims/violation_outcome.hpp"

#include <charconv>

#include "runtime/core/json.hpp"
#include "runtime/workspace/task_name.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

identity_parts parse_attempt_identity(std::string_view identity) {
  identity_parts out;
  auto last = identity.rfind("__");
  if (last == std::string_view::npos || last == 0)
    return out;
  auto counter = identity.substr(last + 2);
  auto before = identity.rfind("__", last - 1);
  if (counter.size() < 2 || counter[0] != 'a' || before == std::string_view::npos)
    return out;
  int n = 0;
  auto digits = counter.substr(1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size())
    return out;
  out.role = std::string(identity.substr(before + 2, last - before - 2));
  out.attempt = n;
  return out;
}

namespace {

work_log_append row_for(const watched_attempt& a, const fs::path& workspace, std::string result) {
  auto parts = parse_attempt_identity(a.identity);
  work_log_event row;
  row.event = "CLAIM";
  row.task = a.task;
  row.role = parts.role;
  row.attempt = parts.attempt;
  row.result = std::move(result);
  // Without its locator the identity names the attempt.
  row.locator = a.locator.empty() ? a.identity : a.locator;
  return {work_log_path(workspace, task_group(a.task)), std::move(row)};
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items)
    out += (out.empty() ? "" : ", ") + i;
  return out;
}

} // namespace

violation_outcome decide_violation(const violation_input& in) {
  const claim_violation& v = *in.violation;
  const auto& known = *in.attempts;
  violation_outcome out;
  out.live = in.live;
  bool writer_known = v.attribution != attribution_basis::candidates && !v.task.empty();
  bool block = writer_known && in.action == violation_action::block;
  std::string action(to_string(block ? violation_action::block : violation_action::warn));

  out.changes.push_back(record_claim_violation{v.task, v.attempt, v.path, v.other_task,
                                               std::string(to_string(v.attribution)),
                                               v.candidates, action, in.now});
  auto claimed_by = v.other_task.empty() ? std::string() : " (claimed by " + v.other_task + ")";
  if (block) {
    out.stop_task = v.task;
    out.block_reason = "claim violation: attempt " + v.attempt + " wrote " + v.path +
                       " outside the task's claim" + claimed_by;
    json evidence{{"path", v.path},
                  {"attempt", v.attempt},
                  {"attribution", std::string(to_string(v.attribution))},
                  {"other_task", v.other_task}};
    out.changes.push_back(set_blocked{v.task, {out.block_reason, dump_json(evidence)}});
  }

  auto& e = out.event;
  e.kind = run_event_kind::claim_violation;
  e.time = in.now;
  e.task = v.task;
  e.identity = v.attempt;
  e.path = v.path;
  e.other_task = v.other_task;
  e.attribution = std::string(to_string(v.attribution));
  e.candidates = v.candidates;
  e.action = action;
  if (writer_known) {
    auto parts = parse_attempt_identity(v.attempt);
    e.role = parts.role;
    e.attempt = parts.attempt;
    e.reason = "wrote " + v.path + " outside its claim" + claimed_by;
    if (block)
      e.reason += "; the task is blocked";
    if (auto a = known.find(v.attempt); a != known.end())
      out.rows.push_back(row_for(a->second, in.workspace, v.path));
  } else {
    e.reason = v.path + " was written outside every claim by one of " + joined(v.candidates) +
               claimed_by;
    auto result = v.path + " (one of " + std::to_string(v.candidates.size()) + " candidates)";
    for (const auto& c : v.candidates)
      if (auto a = known.find(c); a != known.end())
        out.rows.push_back(row_for(a->second, in.workspace, result));
  }
  return out;
}

std::string find_attempt_locator(const fs::path& runs_dir, std::string_view identity) {
  if (runs_dir.empty() || identity.empty())
    return {};
  std::string suffix = "__" + std::string(identity);
  std::string best;
  std::error_code ec;
  for (fs::directory_iterator it(runs_dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto name = it->path().filename().string();
    if (name.size() > suffix.size() && name.ends_with(suffix) && name > best)
      best = name;
  }
  if (best.empty())
    return {};
  return (runs_dir / best / "locator.json").string();
}

} // namespace ad::runtime
