#include "runtime/core/overload.hpp"
#include "runtime/records/scheduler_records.hpp"

#include <stdexcept>

#include "runtime/core/exception_text.hpp"
#include "runtime/records/decision_records.hpp"
#include "runtime/records/scan_records.hpp"
#include "runtime/report/event_render.hpp"
#include "runtime/run/admission_quota.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::runtime {

namespace {

template <class T>
T unwrap(result<T> r) {
  if (!r)
    throw std::invalid_argument(r.error().message());
  return std::move(*r);
}

const json& member(const json& j, std::string_view key) {
  if (!j.contains(key))
    throw_json_member_error(key, "is missing");
  return j.at(key);
}

std::vector<state_change> changes_of(const json& j) {
  std::vector<state_change> out;
  for (const auto& c : json_array_member(j, "changes"))
    out.push_back(unwrap(change_from_json(c, "scheduler.event changes")));
  return out;
}

json scan_reading_json(const scan_reading& r) {
  json tasks = json::array();
  for (const auto& t : r.tasks)
    tasks.push_back(scanned_task_to_json(t.get()));
  json completed = json::object();
  for (const auto& [group, folders] : r.completed) {
    json list = json::array();
    for (const auto& f : folders)
      list.push_back(json{{"folder", f.folder}, {"log", f.log}});
    completed[group] = std::move(list);
  }
  return json{{"full", r.full},
              {"changed", r.changed},
              {"tasks", std::move(tasks)},
              {"completed", std::move(completed)}};
}

scan_reading scan_reading_of(const json& j) {
  scan_reading r;
  r.full = json_member<bool>(j, "full");
  r.changed = json_member<std::vector<std::string>>(j, "changed");
  for (const auto& t : json_array_member(j, "tasks"))
    r.tasks.push_back(unwrap(scanned_task_from_json(t)));
  const auto& completed = member(j, "completed");
  if (!completed.is_object())
    throw_json_member_error("completed", "must be an object");
  for (const auto& [group, list] : completed.items())
    for (const auto& f : list)
      r.completed[group].push_back(
        {json_member<std::string>(f, "folder"), json_member<std::string>(f, "log")});
  return r;
}

json archive_outcome_json(const work_log_archive_outcome& o) {
  return json{{"attempted", o.attempted}, {"ok", o.ok}, {"not_found", o.not_found},
              {"error", o.error}};
}

json violations_json(const std::vector<live_violation>& live) {
  json out = json::array();
  for (const auto& l : live)
    out.push_back({{"path", l.path}, {"attempt", l.attempt}, {"task", l.task}});
  return out;
}

json specs_json(const task_spec& spec) { return to_json(spec); }

} // namespace

json to_json(const scheduler_event& e) {
  json body = std::visit(
    overload{
      [](const sched_ev::begun&) { return json::object(); },
      [](const sched_ev::state_snapshot& x) {
        return json{{"seq", x.seq}, {"state", state_to_json(x.state)}};
      },
      [](const sched_ev::state_published& x) {
        return json{{"seq", x.seq}, {"changes", changes_body(x.changes)}};
      },
      [](const sched_ev::state_applied& x) { return json{{"seq", x.seq}}; },
      [](const sched_ev::request_failed& x) {
        return json{{"peer", std::string(to_string(x.peer))}, {"error", x.error}};
      },
      [](const sched_ev::work_logs_probed& x) { return json{{"writable", x.writable}}; },
      [](const sched_ev::active_stages_read& x) {
        return json{{"readings", active_stage_readings_body(x.readings)}};
      },
      [](const sched_ev::scan_read& x) { return json{{"reading", scan_reading_json(x.reading)}}; },
      [](const sched_ev::scan_failed& x) { return json{{"error", x.error}}; },
      [](const sched_ev::archives_found& x) { return json{{"folders", x.folders}}; },
      [](const sched_ev::work_logs_archived& x) {
        json moved = json::object();
        for (const auto& [group, o] : x.moved)
          moved[group] = archive_outcome_json(o);
        return json{{"moved", std::move(moved)}};
      },
      [](const sched_ev::quota_probed& x) { return json{{"snapshot", to_json(x.snapshot)}}; },
      [](const sched_ev::task_ended& x) {
        return json{{"task", x.task},     {"stage", x.stage}, {"outcome", x.outcome},
                    {"reason", x.reason}, {"pause", x.pause}};
      },
      [](const sched_ev::claim_violation& x) {
        return json{{"live", violations_json(x.live)},
                    {"task", x.task},
                    {"stop_task", x.stop_task},
                    {"reason", x.reason}};
      },
      [](const sched_ev::violation_ended& x) { return json{{"attempt", x.attempt}}; },
      [](const sched_ev::poll&) { return json::object(); },
      [](const sched_ev::shutdown&) { return json::object(); },
    },
    e);
  body["event"] = std::string(event_name(e));
  return body;
}

result<scheduler_event> scheduler_event_from_json(const json& j) {
  try {
    auto name = json_member<std::string>(j, "event");
    if (name == "begun")
      return scheduler_event{sched_ev::begun{}};
    if (name == "state_snapshot")
      return scheduler_event{sched_ev::state_snapshot{
        json_member<uint64_t>(j, "seq"),
        unwrap(state_from_json(member(j, "state"), "scheduler.event state"))}};
    if (name == "state_published")
      return scheduler_event{sched_ev::state_published{json_member<uint64_t>(j, "seq"), changes_of(j)}};
    if (name == "state_applied")
      return scheduler_event{sched_ev::state_applied{json_member<uint64_t>(j, "seq")}};
    if (name == "request_failed") {
      auto peer = json_member<std::string>(j, "peer");
      if (peer != to_string(scheduler_peer::state_store) &&
          peer != to_string(scheduler_peer::quota_prober))
        throw_json_member_error("peer", "names no peer");
      return scheduler_event{sched_ev::request_failed{
        peer == to_string(scheduler_peer::state_store) ? scheduler_peer::state_store
                                                       : scheduler_peer::quota_prober,
        json_member<std::string>(j, "error")}};
    }
    if (name == "work_logs_probed")
      return scheduler_event{
        sched_ev::work_logs_probed{json_member<std::map<std::string, bool>>(j, "writable")}};
    if (name == "active_stages_read")
      return scheduler_event{
        sched_ev::active_stages_read{unwrap(active_stage_readings_from_json(member(j, "readings")))}};
    if (name == "scan_read")
      return scheduler_event{sched_ev::scan_read{scan_reading_of(member(j, "reading"))}};
    if (name == "scan_failed")
      return scheduler_event{sched_ev::scan_failed{json_member<std::string>(j, "error")}};
    if (name == "archives_found")
      return scheduler_event{sched_ev::archives_found{
        json_member<std::map<std::string, std::vector<std::string>>>(j, "folders")}};
    if (name == "work_logs_archived") {
      sched_ev::work_logs_archived x;
      const auto& moved = member(j, "moved");
      if (!moved.is_object())
        throw_json_member_error("moved", "must be an object");
      for (const auto& [group, o] : moved.items())
        x.moved[group] = {json_member<bool>(o, "attempted"), json_member<bool>(o, "ok"),
                          json_member<bool>(o, "not_found"), json_member<std::string>(o, "error")};
      return scheduler_event{std::move(x)};
    }
    if (name == "quota_probed")
      return scheduler_event{
        sched_ev::quota_probed{unwrap(probe_snapshot_from_json(member(j, "snapshot")))}};
    if (name == "task_ended")
      return scheduler_event{sched_ev::task_ended{
        json_member<std::string>(j, "task"), json_member<std::string>(j, "stage"),
        json_member<std::string>(j, "outcome"), json_member<std::string>(j, "reason"),
        json_member<millis>(j, "pause")}};
    if (name == "claim_violation") {
      sched_ev::claim_violation x;
      for (const auto& l : json_array_member(j, "live"))
        x.live.push_back({json_member<std::string>(l, "path"),
                          json_member<std::string>(l, "attempt"),
                          json_member<std::string>(l, "task")});
      x.task = json_member<std::string>(j, "task");
      x.stop_task = json_member<std::string>(j, "stop_task");
      x.reason = json_member<std::string>(j, "reason");
      return scheduler_event{std::move(x)};
    }
    if (name == "violation_ended")
      return scheduler_event{sched_ev::violation_ended{json_member<std::string>(j, "attempt")}};
    if (name == "poll")
      return scheduler_event{sched_ev::poll{}};
    if (name == "shutdown")
      return scheduler_event{sched_ev::shutdown{}};
    return status::invalid_argument("scheduler.event: unknown event \"" + name + "\"");
  } catch (const std::exception& e) {
    return status::invalid_argument("scheduler.event: " + exception_text(e));
  }
}

json to_json(const scheduler_command& c) {
  json body = std::visit(
    overload{
      [](const sched_cmd::subscribe_state&) { return json::object(); },
      [](const sched_cmd::make_durable& x) { return json{{"changes", changes_body(x.changes)}}; },
      [](const sched_cmd::probe_work_logs& x) { return json{{"tasks", x.tasks}}; },
      [](const sched_cmd::read_active_stages& x) {
        // The tasks with an active stage whose state goes with the command.
        std::vector<std::string> tasks;
        for (const auto& [name, st] : x.state.tasks)
          if (!st.active_stage.empty())
            tasks.push_back(name);
        return json{{"tasks", tasks}};
      },
      [](const sched_cmd::refresh_scan& x) { return json{{"also", x.also}}; },
      [](const sched_cmd::find_archives& x) { return json{{"tasks", x.tasks}}; },
      [](const sched_cmd::archive_work_logs& x) { return json{{"groups", x.groups}}; },
      [](const sched_cmd::remove_attempt_logs& x) { return json{{"task", x.task}}; },
      [](const sched_cmd::run_quota_probes& x) {
        return json{{"plan", probe_plan_to_json(x.plan)}, {"id", x.id}};
      },
      [](const sched_cmd::tell_supervisor& x) { return json{{"snapshot", to_json(x.snapshot)}}; },
      [](const sched_cmd::start_task& x) { return json{{"spec", specs_json(x.spec)}}; },
      [](const sched_cmd::stop_task& x) { return json{{"task", x.task}, {"reason", x.reason}}; },
      [](const sched_cmd::wake_at& x) { return json{{"at", x.at}}; },
      [](const sched_cmd::checkpoint& x) { return json{{"name", x.name}}; },
      [](const sched_cmd::show& x) { return json{{"event", run_event_json(x.event)}}; },
      [](const sched_cmd::finish_run& x) {
        return json{{"exit_code", x.exit_code}, {"summary", x.summary}, {"details", x.details}};
      },
    },
    c);
  body["command"] = std::string(command_name(c));
  return body;
}

json commands_to_json(const std::vector<scheduler_command>& cs) {
  json out = json::array();
  for (const auto& c : cs)
    out.push_back(to_json(c));
  return out;
}

} // namespace ad::runtime
