// The message trace's JSON forms of the task machine's events and commands
// (task.event -> task.commands, docs/traces.md).

#include "runtime/core/overload.hpp"
#include "runtime/run/task_machine.hpp"

#include "runtime/core/exception_text.hpp"
#include "runtime/report/event_render.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::runtime {

namespace {

json changes_json(const std::vector<state_change>& changes) {
  json out = json::array();
  for (const auto& c : changes)
    out.push_back(change_to_json(c));
  return out;
}

std::vector<state_change> changes_of(const json& j, std::string_view key) {
  std::vector<state_change> out;
  for (const auto& c : json_array_member(j, key)) {
    auto change = change_from_json(c, "task.event changes");
    if (!change)
      throw std::invalid_argument(change.error().message());
    out.push_back(std::move(*change));
  }
  return out;
}

json state_json(const task_state& st) {
  json j;
  to_json(j, st);
  return j;
}

task_state state_of(const json& j, std::string_view key) {
  if (!j.contains(key))
    throw_json_member_error(key, "is missing");
  auto st = task_from_json_text(dump_json(j.at(key)), key);
  if (!st)
    throw std::invalid_argument(st.error().message());
  return std::move(*st);
}

template <class T>
T unwrap(result<T> r) {
  if (!r)
    throw std::invalid_argument(r.error().message());
  return std::move(*r);
}

json checklist_json(const checklist_reading& c) {
  return json{{"state", static_cast<int>(c.state)}, {"boxes", c.boxes}, {"open", c.open}};
}

checklist_reading checklist_of(const json& j) {
  checklist_reading c;
  auto state = json_member<int>(j, "state");
  if (state < 0 || state > static_cast<int>(checklist_state::complete))
    throw_json_member_error("state", "is not a checklist state");
  c.state = static_cast<checklist_state>(state);
  c.boxes = json_member<std::size_t>(j, "boxes");
  c.open = json_member<std::size_t>(j, "open");
  return c;
}

json launch_reading_json(const launch_reading& r) {
  review_reading review;
  review.before = r.review_seen;
  review.signature_before = r.review_signature;
  return json{{"write_set", r.write_set}, {"review", review_reading_body(review)}};
}

launch_reading launch_reading_of(const json& j) {
  launch_reading r;
  r.write_set = json_member<std::vector<file_snapshot>>(j, "write_set");
  if (!j.contains("review"))
    throw_json_member_error("review", "is missing");
  auto review = unwrap(review_reading_from_json(j.at("review")));
  r.review_seen = std::move(review.before);
  r.review_signature = std::move(review.signature_before);
  return r;
}

json attempt_reading_json(const attempt_reading& r) {
  review_reading review;
  review.observed = r.review_observed;
  review.after = r.review;
  review.signature_after = r.review_signature;
  return json{{"write_set", r.write_set},
              {"runtime_identity", {{"cli", r.runtime_identity.cli},
                                    {"model", r.runtime_identity.model}}},
              {"checklist", checklist_json(r.checklist)},
              {"review", review_reading_body(review)},
              {"named_files", r.named_files},
              {"stream_tail", r.stream_tail}};
}

attempt_reading attempt_reading_of(const json& j) {
  attempt_reading r;
  r.write_set = json_member<std::vector<file_snapshot>>(j, "write_set");
  if (!j.contains("runtime_identity") || !j.contains("checklist") || !j.contains("review"))
    throw_json_member_error("runtime_identity, checklist and review", "are required");
  r.runtime_identity = {json_member<std::string>(j.at("runtime_identity"), "cli"),
                        json_member<std::string>(j.at("runtime_identity"), "model")};
  r.checklist = checklist_of(j.at("checklist"));
  auto review = unwrap(review_reading_from_json(j.at("review")));
  r.review_observed = review.observed;
  r.review = std::move(review.after);
  r.review_signature = std::move(review.signature_after);
  r.named_files = json_member<std::vector<named_file>>(j, "named_files");
  r.stream_tail = json_member<std::string>(j, "stream_tail");
  return r;
}

json query_json(const named_path_query& q) {
  return json{{"paths", q.paths_as_written},  {"workspace", q.workspace.string()},
              {"task_root", q.task_root.string()}, {"task", q.task},
              {"plan_number", q.plan_number}, {"write_paths", q.write_paths},
              {"runs_dir", q.runs_dir.string()}, {"now", q.now}};
}

task_peer peer_of(const std::string& name) {
  for (auto p : {task_peer::state_store, task_peer::supervisor, task_peer::attempt})
    if (to_string(p) == name)
      return p;
  throw std::invalid_argument("unknown peer \"" + name + "\"");
}

} // namespace

std::string_view event_name(const task_event& e) {
  return std::visit(
    overload{[](const task_ev::begun&) { return "begun"; },
             [](const task_ev::cooldowns_read&) { return "cooldowns_read"; },
             [](const task_ev::task_state_read&) { return "task_state_read"; },
             [](const task_ev::durable&) { return "durable"; },
             [](const task_ev::launch_read&) { return "launch_read"; },
             [](const task_ev::attempt_finished&) { return "attempt_finished"; },
             [](const task_ev::attempt_read&) { return "attempt_read"; },
             [](const task_ev::named_files_read&) { return "named_files_read"; },
             [](const task_ev::supervisor_decided&) { return "supervisor_decided"; },
             [](const task_ev::placed&) { return "placed"; },
             [](const task_ev::spend_read&) { return "spend_read"; },
             [](const task_ev::woke&) { return "woke"; },
             [](const task_ev::stop&) { return "stop"; },
             [](const task_ev::request_failed&) { return "request_failed"; }},
    e);
}

std::string_view command_name(const task_command& c) {
  return std::visit(
    overload{[](const task_cmd::read_cooldowns&) { return "read_cooldowns"; },
             [](const task_cmd::read_task_state&) { return "read_task_state"; },
             [](const task_cmd::make_durable&) { return "make_durable"; },
             [](const task_cmd::read_spend&) { return "read_spend"; },
             [](const task_cmd::read_for_launch&) { return "read_for_launch"; },
             [](const task_cmd::start_attempt&) { return "start_attempt"; },
             [](const task_cmd::adopt_attempt&) { return "adopt_attempt"; },
             [](const task_cmd::place_attempt&) { return "place_attempt"; },
             [](const task_cmd::cancel_attempt&) { return "cancel_attempt"; },
             [](const task_cmd::read_after_attempt&) { return "read_after_attempt"; },
             [](const task_cmd::read_named_files&) { return "read_named_files"; },
             [](const task_cmd::ask_supervisor&) { return "ask_supervisor"; },
             [](const task_cmd::wake_at&) { return "wake_at"; },
             [](const task_cmd::checkpoint&) { return "checkpoint"; },
             [](const task_cmd::remove_attempt_logs&) { return "remove_attempt_logs"; },
             [](const task_cmd::show&) { return "show"; },
             [](const task_cmd::note&) { return "note"; },
             [](const task_cmd::end_task&) { return "end_task"; }},
    c);
}

json to_json(const task_event& e) {
  json body = std::visit(
    overload{
      [](const task_ev::begun&) { return json::object(); },
      [](const task_ev::cooldowns_read& x) { return json{{"cooldowns", to_json(x.cooldowns)}}; },
      [](const task_ev::task_state_read& x) {
        return json{{"found", x.found}, {"state", state_json(x.state)}};
      },
      [](const task_ev::durable&) { return json::object(); },
      [](const task_ev::launch_read& x) {
        return json{{"reading", launch_reading_json(x.reading)}};
      },
      [](const task_ev::attempt_finished& x) { return json{{"result", to_json(x.result)}}; },
      [](const task_ev::attempt_read& x) {
        return json{{"reading", attempt_reading_json(x.reading)}};
      },
      [](const task_ev::named_files_read& x) { return json{{"files", x.files}}; },
      [](const task_ev::supervisor_decided& x) {
        json events = json::array();
        for (const auto& e : x.events)
          events.push_back(to_json(e));
        return json{{"step", to_json(x.step)},
                    {"changes", changes_json(x.changes)},
                    {"events", std::move(events)}};
      },
      [](const task_ev::placed& x) {
        return json{{"node", x.node}, {"waiting_reason", x.waiting_reason}};
      },
      [](const task_ev::spend_read& x) {
        return json{{"task", usage_to_json(x.task)}, {"run", usage_to_json(x.run)}};
      },
      [](const task_ev::woke&) { return json::object(); },
      [](const task_ev::stop&) { return json::object(); },
      [](const task_ev::request_failed& x) {
        return json{{"peer", std::string(to_string(x.peer))}, {"error", x.error}};
      }},
    e);
  body["event"] = std::string(event_name(e));
  return body;
}

result<task_event> task_event_from_json(const json& j) {
  try {
    auto name = json_member<std::string>(j, "event");
    if (name == "begun")
      return task_event{task_ev::begun{}};
    if (name == "cooldowns_read") {
      if (!j.contains("cooldowns"))
        throw_json_member_error("cooldowns", "is missing");
      return task_event{task_ev::cooldowns_read{unwrap(target_cooldowns_from_json(j["cooldowns"]))}};
    }
    if (name == "task_state_read")
      return task_event{task_ev::task_state_read{json_member<bool>(j, "found"), state_of(j, "state")}};
    if (name == "durable")
      return task_event{task_ev::durable{}};
    if (name == "launch_read") {
      if (!j.contains("reading"))
        throw_json_member_error("reading", "is missing");
      return task_event{task_ev::launch_read{launch_reading_of(j.at("reading"))}};
    }
    if (name == "attempt_finished") {
      if (!j.contains("result"))
        throw_json_member_error("result", "is missing");
      return task_event{task_ev::attempt_finished{unwrap(attempt_result_from_json(j["result"]))}};
    }
    if (name == "attempt_read") {
      if (!j.contains("reading"))
        throw_json_member_error("reading", "is missing");
      return task_event{task_ev::attempt_read{attempt_reading_of(j.at("reading"))}};
    }
    if (name == "named_files_read")
      return task_event{task_ev::named_files_read{json_member<std::vector<named_file>>(j, "files")}};
    if (name == "supervisor_decided") {
      if (!j.contains("step"))
        throw_json_member_error("step", "is missing");
      task_ev::supervisor_decided d;
      d.step = unwrap(next_step_from_json(j["step"]));
      d.changes = changes_of(j, "changes");
      for (const auto& e : json_array_member(j, "events"))
        d.events.push_back(unwrap(tactical_event_from_json(e)));
      return task_event{std::move(d)};
    }
    if (name == "placed")
      return task_event{task_ev::placed{json_member<std::string>(j, "node"),
                                        json_member<std::string>(j, "waiting_reason")}};
    if (name == "spend_read") {
      if (!j.contains("task") || !j.contains("run"))
        throw_json_member_error("task and run", "are required");
      return task_event{task_ev::spend_read{unwrap(usage_from_json(j["task"])),
                                            unwrap(usage_from_json(j["run"]))}};
    }
    if (name == "woke")
      return task_event{task_ev::woke{}};
    if (name == "stop")
      return task_event{task_ev::stop{}};
    if (name == "request_failed")
      return task_event{task_ev::request_failed{peer_of(json_member<std::string>(j, "peer")),
                                                json_member<std::string>(j, "error")}};
    return status::invalid_argument("task event: unknown event \"" + name + "\"");
  } catch (const std::exception& e) {
    return status::invalid_argument("task event: " + exception_text(e));
  }
}

json to_json(const task_command& c) {
  json body = std::visit(
    overload{
      [](const task_cmd::read_cooldowns&) { return json::object(); },
      [](const task_cmd::read_task_state&) { return json::object(); },
      [](const task_cmd::make_durable& x) { return json{{"changes", changes_json(x.changes)}}; },
      [](const task_cmd::read_spend&) { return json::object(); },
      [](const task_cmd::read_for_launch& x) {
        return json{{"review_baseline", x.review_baseline}};
      },
      [](const task_cmd::start_attempt& x) { return json{{"order", to_json(x.order)}}; },
      [](const task_cmd::adopt_attempt& x) {
        return json{{"order", to_json(x.order)}, {"locator", x.locator},
                    {"keeper_pid", x.keeper_pid}, {"keeper_start_token", x.keeper_start_token}};
      },
      [](const task_cmd::place_attempt& x) {
        return json{{"identity", x.identity}, {"task", x.task}, {"adapter", x.adapter}};
      },
      [](const task_cmd::cancel_attempt& x) { return json{{"identity", x.identity}}; },
      [](const task_cmd::read_after_attempt& x) {
        return json{{"succeeded", x.succeeded}, {"locator", x.locator},
                    {"stream_log", x.stream_log}};
      },
      [](const task_cmd::read_named_files& x) { return json{{"query", query_json(x.query)}}; },
      [](const task_cmd::ask_supervisor& x) {
        return json{{"request", to_json(x.request)}, {"state", state_json(x.state)}};
      },
      [](const task_cmd::wake_at& x) { return json{{"at", x.at}}; },
      [](const task_cmd::checkpoint& x) {
        json j{{"name", x.name}};
        if (!x.role.empty())
          j["role"] = x.role;
        return j;
      },
      [](const task_cmd::remove_attempt_logs&) { return json::object(); },
      [](const task_cmd::show& x) { return json{{"event", run_event_json(x.event)}}; },
      [](const task_cmd::note& x) { return json{{"text", x.text}}; },
      [](const task_cmd::end_task& x) {
        return json{{"outcome", x.outcome}, {"reason", x.reason}, {"pause_ms", x.pause}};
      }},
    c);
  body["command"] = std::string(command_name(c));
  return body;
}

json commands_to_json(const std::vector<task_command>& cs) {
  json out = json::array();
  for (const auto& c : cs)
    out.push_back(to_json(c));
  return out;
}

} // namespace ad::runtime
