#include "runtime/replay/decision_records.hpp"

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

json supervisor_failure_body(std::string_view request_json, std::string_view task_state_json,
                             millis now) {
  return json{{"request", json_or_text(request_json)},
              {"task_state", json_or_text(task_state_json)},
              {"now", now}};
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
    obs.observed = j.at("observed").get<int>();
    obs.complete = j.at("complete").get<int>();
    obs.not_complete = j.at("not_complete").get<std::vector<std::string>>();
    return obs;
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("run.end: ") + e.what());
  }
}

json run_exit_body(const run_exit& e) {
  return json{{"code", e.code}, {"summary", e.summary}, {"details", e.details}};
}

} // namespace ad::runtime
