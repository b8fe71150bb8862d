#include "runtime/records/decision_records.hpp"

#include <optional>
#include <stdexcept>

#include "runtime/core/exception_text.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::runtime {

json json_or_text(std::string_view text) {
  auto doc = parse_json(text, "trace body");
  return doc.is_ok() ? std::move(*doc) : json(std::string(text));
}

json changes_body(const std::vector<state_change>& changes) {
  json out = json::array();
  for (const auto& c : changes)
    out.push_back(change_to_json(c));
  return out;
}

json supervisor_failure_body(const supervisor_request& request, const task_state& task,
                             millis now) {
  json state;
  to_json(state, task);
  return json{{"request", to_json(request)}, {"task_state", std::move(state)}, {"now", now}};
}

json supervisor_step_body(const supervisor_outcome& out) {
  json events = json::array();
  for (const auto& e : out.events)
    events.push_back(to_json(e));
  return json{{"step", std::string(step_name(out.step))},
              {"detail", to_json(out.step)},
              {"changes", changes_body(out.changes)},
              {"events", events},
              {"cooldowns", to_json(out.cooldowns)}};
}

namespace {

json probe_body(const active_probe& p) {
  json body{{"kind", std::string(to_string(p.kind))},
            {"reason", p.reason},
            {"locator", p.locator},
            {"locator_status", p.locator_status},
            {"owned", p.owned}};
  if (p.kind == active_probe_kind::kept) {
    const auto& k = p.kept;
    body["kept"] = json{{"identity", k.identity},       {"plan_number", k.plan_number},
                        {"attempt", k.attempt},         {"role", k.role},
                        {"cli", k.cli},                 {"model", k.model},
                        {"plan_path", k.plan_path},     {"review_path", k.review_path},
                        {"keeper_pid", k.keeper_pid},   {"keeper_start_token", k.keeper_start_token},
                        {"ended", k.ended}};
    if (!k.node.empty())
      body["kept"]["node"] = k.node;
  }
  return body;
}

kept_attempt kept_from_json(const json& j) {
  kept_attempt k;
  k.identity = json_member<std::string>(j, "identity");
  k.plan_number = json_member<int64_t>(j, "plan_number");
  k.attempt = json_member<int64_t>(j, "attempt");
  k.role = json_member<std::string>(j, "role");
  k.cli = json_member<std::string>(j, "cli");
  k.model = json_member<std::string>(j, "model");
  k.plan_path = json_member<std::string>(j, "plan_path");
  k.review_path = json_member<std::string>(j, "review_path");
  k.keeper_pid = json_member<int64_t>(j, "keeper_pid");
  k.keeper_start_token = json_member<std::string>(j, "keeper_start_token");
  k.ended = json_member<bool>(j, "ended");
  if (j.contains("node"))
    k.node = json_member<std::string>(j, "node");
  return k;
}

json adoption_body(const attempt_adoption& a) {
  return json{{"task", a.task}, {"stage", a.stage}, {"locator", a.locator},
              {"identity", a.attempt.identity}, {"keeper_pid", a.attempt.keeper_pid},
              {"ended", a.attempt.ended}};
}

} // namespace

json active_stage_readings_body(const std::vector<active_stage_reading>& readings) {
  json out = json::array();
  for (const auto& r : readings)
    out.push_back(json{
      {"task", r.task},
      {"state", json_or_text(task_to_json_text(r.state))},
      {"probe", probe_body(r.probe)},
      {"locator_read", r.locator_read},
      {"locator_role", r.locator_role},
      {"locator_cli", r.locator_cli},
      {"locator_model", r.locator_model},
      {"checklist_read", r.checklist_read},
      {"checklist", json{{"state", static_cast<int>(r.checklist.state)},
                         {"boxes", r.checklist.boxes},
                         {"open", r.checklist.open}}}});
  return json{{"readings", std::move(out)}};
}

result<std::vector<active_stage_reading>> active_stage_readings_from_json(const json& j) {
  try {
    std::vector<active_stage_reading> out;
    for (const auto& x : json_array_member(j, "readings")) {
      active_stage_reading r;
      r.task = json_member<std::string>(x, "task");
      if (!x.contains("state") || !x.at("state").is_object())
        throw_json_member_error("state", "must be a task state");
      auto st = task_from_json_text(dump_json(x.at("state")), "scheduler.liveness state");
      if (!st.is_ok())
        return st.error();
      r.state = std::move(*st);
      const auto& probe = x.contains("probe") ? x.at("probe") : json();
      auto kind = json_member<std::string>(probe, "kind");
      if (kind != "live" && kind != "stale" && kind != "kept")
        throw_json_member_error("kind", "has an unknown value \"" + kind + "\"");
      r.probe.kind = kind == "live"   ? active_probe_kind::live
                     : kind == "kept" ? active_probe_kind::kept
                                      : active_probe_kind::stale;
      if (r.probe.kind == active_probe_kind::kept) {
        if (!probe.contains("kept"))
          throw_json_member_error("kept", "is missing");
        r.probe.kept = kept_from_json(probe.at("kept"));
      }
      r.probe.reason = json_member<std::string>(probe, "reason");
      r.probe.locator = json_member<std::string>(probe, "locator");
      r.probe.locator_status = json_member<std::string>(probe, "locator_status");
      r.probe.owned = json_member<bool>(probe, "owned");
      r.locator_read = json_member<bool>(x, "locator_read");
      r.locator_role = json_member<std::string>(x, "locator_role");
      r.locator_cli = json_member<std::string>(x, "locator_cli");
      r.locator_model = json_member<std::string>(x, "locator_model");
      r.checklist_read = json_member<bool>(x, "checklist_read");
      const auto& c = x.contains("checklist") ? x.at("checklist") : json();
      auto state = json_member<int>(c, "state");
      if (state < 0 || state > static_cast<int>(checklist_state::complete))
        throw_json_member_error("state", "is not a checklist state");
      r.checklist.state = static_cast<checklist_state>(state);
      r.checklist.boxes = json_member<std::size_t>(c, "boxes");
      r.checklist.open = json_member<std::size_t>(c, "open");
      out.push_back(std::move(r));
    }
    return out;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("scheduler.liveness: ") + exception_text(e));
  }
}

json active_review_body(const active_review& review) {
  json adopt = json::array();
  for (const auto& a : review.adopt)
    adopt.push_back(adoption_body(a));
  return json{{"live", review.live}, {"changes", changes_body(review.changes)},
              {"cleared", review.cleared}, {"finished", review.finished},
              {"adopt", std::move(adopt)}};
}

} // namespace ad::runtime
