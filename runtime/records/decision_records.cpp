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

json reconcile_input_body(const reconcile_input& in) {
  return json{{"scope", in.scope}, {"record", in.record}, {"live", in.live},
              {"archives", in.archives}};
}

result<reconcile_input> reconcile_input_from_json(const json& j) {
  try {
    reconcile_input in;
    in.scope = json_member<std::string>(j, "scope");
    if (!j.contains("record") || !j.at("record").is_object())
      throw_json_member_error("record", "must be an orchestration record");
    in.record = json_member<orchestration_record>(j, "record");
    in.live = json_member<std::set<std::string>>(j, "live");
    in.archives = json_member<std::map<std::string, std::vector<std::string>>>(j, "archives");
    return in;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("scheduler.reconcile: ") + exception_text(e));
  }
}

json retry_blocked_body(const retry_blocked_input& in) {
  json tasks = json::object();
  for (const auto& [name, st] : in.tasks)
    tasks[name] = json_or_text(task_to_json_text(st));
  return json{{"tasks", std::move(tasks)}, {"now", in.now}};
}

result<retry_blocked_input> retry_blocked_input_from_json(const json& j) {
  try {
    retry_blocked_input in;
    in.now = json_member<millis>(j, "now");
    auto tasks = json_member<json>(j, "tasks");
    if (!tasks.is_object())
      throw_json_member_error("tasks", "must be an object of task states");
    for (const auto& [name, st] : tasks.items()) {
      auto task = task_from_json_text(dump_json(st), "scheduler.retry_blocked.tasks." + name);
      if (!task.is_ok())
        return task.error();
      in.tasks.emplace(name, std::move(*task));
    }
    return in;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("scheduler.retry_blocked: ") + exception_text(e));
  }
}

json reconcile_outcome_body(const reconcile_outcome& out) {
  return json{{"completed", out.completed}, {"errors", out.errors},
              {"changes", changes_body(out.changes)}};
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

json sightings_body(const std::vector<task_sighting>& sightings) {
  json tasks = json::array();
  for (const auto& s : sightings)
    tasks.push_back(json{{"task", s.task},
                         {"work_unit", s.work_unit},
                         {"state_work_unit", s.state_known ? json(s.state_work_unit) : json()},
                         {"orchestration_known", s.orchestration_known},
                         {"archive_baseline", s.archive_baseline}});
  return json{{"tasks", std::move(tasks)}};
}

result<std::vector<task_sighting>> sightings_from_json(const json& j) {
  try {
    std::vector<task_sighting> out;
    for (const auto& x : json_array_member(j, "tasks")) {
      task_sighting s;
      s.task = json_member<std::string>(x, "task");
      s.work_unit = json_member<std::string>(x, "work_unit");
      if (!x.contains("state_work_unit"))
        throw_json_member_error("state_work_unit", "is missing");
      s.state_known = !x.at("state_work_unit").is_null();
      if (s.state_known)
        s.state_work_unit = json_member<std::string>(x, "state_work_unit");
      s.orchestration_known = json_member<bool>(x, "orchestration_known");
      s.archive_baseline = json_member<std::vector<std::string>>(x, "archive_baseline");
      out.push_back(std::move(s));
    }
    return out;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("scheduler.sightings: ") + exception_text(e));
  }
}

json group_reading_body(const group_reading& g) {
  return json{{"scope", g.scope},
              {"status", to_string(g.status)},
              {"complete", g.complete},
              {"active", g.active},
              {"busy", g.busy},
              {"archive", json{{"attempted", g.archived.attempted},
                               {"ok", g.archived.ok},
                               {"not_found", g.archived.not_found},
                               {"error", g.archived.error}}}};
}

result<group_reading> group_reading_from_json(const json& j) {
  try {
    group_reading g;
    g.scope = json_member<std::string>(j, "scope");
    auto status = parse_orchestration_status(json_member<std::string>(j, "status"));
    if (!status.is_ok())
      throw_json_member_error("status", status.error().message());
    g.status = *status;
    g.complete = json_member<std::size_t>(j, "complete");
    g.active = json_member<std::size_t>(j, "active");
    g.busy = json_member<bool>(j, "busy");
    const auto& a = j.contains("archive") ? j.at("archive") : json();
    g.archived.attempted = json_member<bool>(a, "attempted");
    g.archived.ok = json_member<bool>(a, "ok");
    g.archived.not_found = json_member<bool>(a, "not_found");
    g.archived.error = json_member<std::string>(a, "error");
    return g;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("scheduler.group: ") + exception_text(e));
  }
}

json group_close_body(const group_close& out) {
  return json{{"close", out.close}, {"changes", changes_body(out.changes)}, {"error", out.error}};
}

json run_end_body(const run_observation& obs) {
  return json{{"interrupted", obs.interrupted},
              {"terminal_error", obs.terminal_error},
              {"other_dispatcher", obs.other_dispatcher},
              {"external_live", obs.external_live},
              {"reconciliation_pending", obs.reconciliation_pending},
              {"capacity_held_externally", obs.capacity_held_externally},
              {"task_group_requested", obs.task_group_requested},
              {"observed", obs.observed},
              {"complete", obs.complete},
              {"not_complete", obs.not_complete}};
}

result<run_observation> run_observation_from_json(const json& j) {
  try {
    run_observation obs;
    obs.interrupted = j.at("interrupted").get<bool>();
    obs.terminal_error = j.at("terminal_error").get<std::string>();
    obs.other_dispatcher = j.at("other_dispatcher").get<std::string>();
    obs.external_live = j.at("external_live").get<std::vector<std::string>>();
    obs.reconciliation_pending = j.at("reconciliation_pending").get<std::vector<std::string>>();
    obs.capacity_held_externally = j.at("capacity_held_externally").get<std::vector<std::string>>();
    obs.task_group_requested = j.at("task_group_requested").get<bool>();
    obs.observed = json_member<int>(j, "observed");
    obs.complete = json_member<int>(j, "complete");
    obs.not_complete = j.at("not_complete").get<std::vector<std::string>>();
    return obs;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("run.end: ") + exception_text(e));
  }
}

json run_exit_body(const run_exit& e) {
  return json{{"code", e.code}, {"summary", e.summary}, {"details", e.details}};
}

} // namespace ad::runtime
