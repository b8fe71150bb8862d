#include "runtime/policy/selection.hpp"

#include <algorithm>
#include <cstdio>

namespace ad::runtime {

namespace {

bool contains(const std::vector<std::string>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string local_text(const local_time_fields& l) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d", l.year, l.month, l.day, l.hour,
                l.minute);
  return buf;
}

// Eligibility of one target for this request; reasons are empty when eligible.
std::vector<std::string> rejection_reasons(const policy& pol, const selection_request& req,
                                           std::string_view id) {
  std::vector<std::string> reasons;
  if (pol.find_target(id) == nullptr) {
    reasons.emplace_back(reason_unknown_target);
    return reasons;
  }
  if (req.quota != nullptr) {
    auto it = req.quota->status_by_target.find(std::string(id));
    if (it != req.quota->status_by_target.end()) {
      if (it->second == "exhausted")
        reasons.emplace_back(reason_quota_exhausted);
      else if (it->second == quota_exhausted_for_work_unit)
        reasons.emplace_back(reason_exhausted_for_work_unit);
    }
  }
  if (req.cooldowns != nullptr)
    if (auto c = req.cooldowns->active(id, req.now))
      reasons.push_back(std::string(reason_cooling_down) + ":" + format_utc_iso(c->until));
  return reasons;
}

route_decision base_decision(const selection_request& req) {
  route_decision d;
  d.work_unit_id = req.work_unit_id;
  d.stage = req.stage;
  d.lane = req.lane;
  d.grade = req.grade;
  d.evaluated_at = req.now;
  d.transition = req.transition;
  if (req.quota != nullptr)
    d.quota = *req.quota;
  return d;
}

void finish(route_decision& d, const selection_request& req, const std::string& selected) {
  d.selected_target = selected;
  d.next_target = selected;
  d.previous_target = req.prior != nullptr && req.transition != route_transition::initial
                        ? req.prior->selected_target
                        : "";
  d.reason_codes.push_back("transition:" + to_string(req.transition));
  if (!req.failure_class.empty())
    d.reason_codes.push_back("failure_class:" + req.failure_class);
  d.reason_codes.push_back("selected:" + selected);
}

std::string rule_context(const selection_request& req) {
  return "stage=" + req.stage + " lane=" + req.lane + " grade=" + std::to_string(req.grade);
}

result<route_decision> select_review(const policy& pol, const selection_request& req) {
  route_decision d = base_decision(req);
  d.rule_id = "review_target";
  d.reason_codes = {"official_review_fixed_target"};
  route_candidate c{pol.review_target, true, {"fixed_review_target"}};
  d.candidates.push_back(c);
  finish(d, req, pol.review_target);
  return d;
}

result<route_decision> select_pinned(const policy& pol, const selection_request& req) {
  route_decision d = base_decision(req);
  d.rule_id = "completing_decision";
  d.reason_codes = {"pinned_to_completing_target"};
  if (pol.find_target(req.pinned_target) == nullptr)
    return status::not_found("no_eligible_candidate: the completing target " + req.pinned_target +
                             " is not in the policy");
  d.candidates.push_back({req.pinned_target, true, {"completing_target"}});
  finish(d, req, req.pinned_target);
  return d;
}

} // namespace

bool window_contains(const time_window& w, const local_time_fields& local) {
  int minute = local.hour * 60 + local.minute;
  int weekday = local.weekday;
  bool in_range;
  if (w.start_minute < w.end_minute) {
    in_range = minute >= w.start_minute && minute < w.end_minute;
  } else {
    // Wraps past midnight: the part after midnight belongs to the previous day.
    if (minute >= w.start_minute) {
      in_range = true;
    } else if (minute < w.end_minute) {
      in_range = true;
      weekday = (weekday + 6) % 7;
    } else {
      in_range = false;
    }
  }
  if (!in_range)
    return false;
  return w.weekdays.empty() ||
         std::find(w.weekdays.begin(), w.weekdays.end(), weekday) != w.weekdays.end();
}

result<const policy_rule*> match_rule(const policy& pol, const time_zone& zone,
                                      std::string_view stage, std::string_view lane, int grade,
                                      millis now) {
  auto local = zone.to_local(now);
  const policy_rule* best = nullptr;
  for (const auto& r : pol.rules) {
    if (r.stage != stage || !contains(r.lanes, lane) || grade < r.grade_min || grade > r.grade_max)
      continue;
    if (r.window && !window_contains(*r.window, local))
      continue;
    if (best == nullptr || r.priority > best->priority)
      best = &r;
  }
  if (best == nullptr)
    return status::not_found("no_matching_rule: no policy rule routes stage=" + std::string(stage) +
                             " lane=" + std::string(lane) + " grade=" + std::to_string(grade) +
                             " at " + local_text(local) + " " + zone.name());
  return best;
}

result<route_decision> select_target(const policy& pol, const time_zone& zone,
                                     const selection_request& req) {
  if (req.stage == "review")
    return select_review(pol, req);
  if (!req.pinned_target.empty())
    return select_pinned(pol, req);
  if (req.transition != route_transition::initial && req.prior == nullptr)
    return status::invalid_argument("select_target: " + to_string(req.transition) +
                                    " needs the prior decision");

  if (req.transition == route_transition::resume) {
    if (auto st = revalidate_decision(*req.prior, pol, zone, req.work_unit_id); !st)
      return st;
    route_decision d = *req.prior;
    d.transition = route_transition::resume;
    d.previous_target = req.prior->selected_target;
    d.next_target = req.prior->selected_target;
    d.evaluated_at = req.now;
    return d;
  }

  // The rule: matched now for an initial decision, the prior one otherwise.
  const policy_rule* rule = nullptr;
  if (req.transition == route_transition::initial) {
    auto m = match_rule(pol, zone, req.stage, req.lane, req.grade, req.now);
    if (!m)
      return m.error();
    rule = *m;
  } else {
    for (const auto& r : pol.rules)
      if (r.id == req.prior->rule_id)
        rule = &r;
    if (rule == nullptr)
      return status::not_found(std::string(req.transition == route_transition::failover
                                             ? "no_failover_candidate"
                                             : "no_promotion_target") +
                               ": the decision's rule " + req.prior->rule_id +
                               " is no longer in the policy");
  }

  route_decision d = base_decision(req);
  d.rule_id = rule->id;
  d.priority = rule->priority;
  d.reason_codes.push_back("rule:" + rule->id);
  d.reason_codes.push_back("timezone:" + zone.name());
  d.reason_codes.push_back(rule->window ? "time_window:" + rule->window->text : "time_window:none");

  std::vector<std::string> ranked;
  if (req.transition == route_transition::promotion) {
    std::string cur = req.prior->selected_target;
    std::vector<std::string> seen{cur};
    while (pol.promotion.count(cur)) {
      cur = pol.promotion.at(cur);
      if (contains(seen, cur))
        break;
      seen.push_back(cur);
      ranked.push_back(cur);
    }
  } else {
    ranked = rule->candidates;
  }

  std::string selected;
  for (const auto& id : ranked) {
    auto reasons = rejection_reasons(pol, req, id);
    if (req.transition == route_transition::failover &&
        (contains(req.used_targets, id) || id == req.prior->selected_target))
      reasons.emplace_back(reason_already_used);
    bool eligible = reasons.empty();
    if (eligible && selected.empty()) {
      selected = id;
      reasons.emplace_back("selected");
    } else if (eligible) {
      reasons.emplace_back("eligible");
    }
    d.candidates.push_back({id, eligible, reasons});
  }
  if (selected.empty()) {
    std::string why;
    for (const auto& c : d.candidates) {
      why += (why.empty() ? "" : "; ") + c.target + ":";
      for (const auto& r : c.reasons)
        why += " " + r;
    }
    const char* code = req.transition == route_transition::failover    ? "no_failover_candidate"
                       : req.transition == route_transition::promotion ? "no_promotion_target"
                                                                       : "no_eligible_candidate";
    return status::not_found(std::string(code) + ": " + rule_context(req) + " rule " + rule->id +
                             (why.empty() ? "" : " (" + why + ")"));
  }
  finish(d, req, selected);
  return d;
}

cooldown_end cooldown_wait_of(const policy& pol, const time_zone& zone, selection_request req) {
  const target_cooldowns* cooling = req.cooldowns;
  if (cooling == nullptr)
    return {};
  req.cooldowns = nullptr;
  auto without = select_target(pol, zone, req);
  if (!without)
    return {};
  cooldown_end first;
  for (const auto& c : without->candidates)
    if (c.eligible)
      if (auto e = cooling->active(c.target, req.now); e && (first.until == 0 || e->until < first.until))
        first = {e->until, c.target};
  return first;
}

std::vector<std::string> used_targets(const task_state& task, std::string_view stage) {
  std::vector<std::string> out;
  for (const route_decision& d : task.route_history)
    if (d.stage == stage && d.work_unit_id == task.work_unit_id && !d.selected_target.empty() &&
        !contains(out, d.selected_target))
      out.push_back(d.selected_target);
  return out;
}

status revalidate_decision(const route_decision& d, const policy& pol, const time_zone& zone,
                           std::string_view current_work_unit_id) {
  auto invalid = [&](std::string why) {
    return status::invalid_argument("persisted " + d.stage + " decision is invalid: " + why);
  };
  if (d.work_unit_id != current_work_unit_id)
    return invalid("it belongs to work unit " + d.work_unit_id + ", the plan is now " +
                   std::string(current_work_unit_id));
  if (pol.find_target(d.selected_target) == nullptr)
    return invalid("selected target " + d.selected_target + " is not in the policy");
  for (const auto& c : d.candidates)
    if (pol.find_target(c.target) == nullptr)
      return invalid("candidate " + c.target + " is not in the policy");
  if (d.stage == "review") {
    if (d.selected_target != pol.review_target)
      return invalid("review target " + d.selected_target + " is not the policy's review target " +
                     pol.review_target);
    return status::ok();
  }
  if (d.stage == "selfcheck" && d.rule_id == "completing_decision")
    return status::ok();
  const policy_rule* rule = nullptr;
  for (const auto& r : pol.rules)
    if (r.id == d.rule_id)
      rule = &r;
  if (rule == nullptr)
    return invalid("rule " + d.rule_id + " is not in the policy");
  if (rule->stage != d.stage || !contains(rule->lanes, d.lane) || d.grade < rule->grade_min ||
      d.grade > rule->grade_max)
    return invalid("rule " + d.rule_id + " no longer covers stage=" + d.stage + " lane=" + d.lane +
                   " grade=" + std::to_string(d.grade));
  if (d.transition == route_transition::initial) {
    // An initial decision must still be what the policy picks at its time.
    auto m = match_rule(pol, zone, d.stage, d.lane, d.grade, d.evaluated_at);
    if (!m)
      return invalid(m.error().message());
    if ((*m)->id != d.rule_id)
      return invalid("rule " + d.rule_id + " no longer routes stage=" + d.stage + " lane=" +
                     d.lane + " grade=" + std::to_string(d.grade) + " (now " + (*m)->id + ")");
  }
  if (contains(rule->candidates, d.selected_target))
    return status::ok();
  for (const auto& start : rule->candidates) {
    std::string cur = start;
    std::vector<std::string> seen{cur};
    while (pol.promotion.count(cur)) {
      cur = pol.promotion.at(cur);
      if (cur == d.selected_target)
        return status::ok();
      if (contains(seen, cur))
        break;
      seen.push_back(cur);
    }
  }
  return invalid("selected target " + d.selected_target + " is neither a candidate of rule " +
                 d.rule_id + " nor on a promotion chain from one");
}

std::vector<std::string> describe_decision(const route_decision& d) {
  std::vector<std::string> lines{
    "work_unit_id=" + d.work_unit_id,
    "stage=" + d.stage + " lane=" + d.lane + " grade=" + std::to_string(d.grade),
    "rule_id=" + d.rule_id + " priority=" + std::to_string(d.priority),
    "transition=" + to_string(d.transition) + " previous=" +
      (d.previous_target.empty() ? "-" : d.previous_target) + " next=" + d.next_target,
    "selected=" + d.selected_target,
    "evaluated_at=" + format_utc_iso(d.evaluated_at),
  };
  std::string cands;
  for (size_t i = 0; i < d.candidates.size(); ++i) {
    const auto& c = d.candidates[i];
    cands += (i ? ";" : "") + std::string("#") + std::to_string(i + 1) + ":" + c.target + "(" +
             (c.eligible ? "eligible" : "rejected");
    for (const auto& r : c.reasons)
      cands += " " + r;
    cands += ")";
  }
  lines.push_back("candidates=" + cands);
  std::string reasons;
  for (const auto& r : d.reason_codes)
    reasons += (reasons.empty() ? "" : ",") + r;
  lines.push_back("reason_codes=" + reasons);
  return lines;
}

} // namespace ad::runtime
