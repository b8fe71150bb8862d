#include "runtime/run/task_spec.hpp"

#include "runtime/core/exception_text.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::runtime {

result<task_stage> parse_run_stage(std::string_view name) {
  for (auto s : {task_stage::worker, task_stage::selfcheck, task_stage::review})
    if (to_string(s) == name)
      return s;
  return status::invalid_argument("unknown stage \"" + std::string(name) +
                                  "\" (expected worker, selfcheck or review)");
}

namespace {

json adoption_json(const task_spec::adoption& a) {
  json j{{"locator", a.locator},
         {"keeper_pid", a.keeper_pid},
         {"keeper_start_token", a.keeper_start_token},
         {"cli", a.cli},
         {"model", a.model}};
  if (!a.node.empty())
    j["node"] = a.node;
  return j;
}

} // namespace

json to_json(const task_spec& spec) {
  return json{{"name", spec.name},
              {"stage", spec.stage_name()},
              {"task_dir", spec.task_dir},
              {"plan", spec.plan},
              {"review", spec.review},
              {"lane", spec.lane},
              {"grade", spec.grade},
              {"plan_number", spec.plan_number},
              {"work_unit_id", spec.work_unit_id},
              {"write_paths", spec.write_paths},
              {"last_attempt", spec.last_attempt},
              {"admission_quota", spec.has_admission_quota ? json(spec.admission_quota) : json()},
              {"adopt", spec.adopting ? adoption_json(spec.adopted) : json()}};
}

result<task_spec> task_spec_from_json(const json& j) {
  try {
    task_spec spec;
    spec.name = json_member<std::string>(j, "name");
    auto stage = parse_run_stage(json_member<std::string>(j, "stage"));
    if (!stage)
      return status::invalid_argument("task spec: " + stage.error().message());
    spec.stage = *stage;
    spec.task_dir = json_member<std::string>(j, "task_dir");
    spec.plan = json_member<std::string>(j, "plan");
    spec.review = json_member<std::string>(j, "review");
    spec.lane = json_member<std::string>(j, "lane");
    spec.grade = json_member<int>(j, "grade");
    spec.plan_number = json_member<int64_t>(j, "plan_number");
    spec.work_unit_id = json_member<std::string>(j, "work_unit_id");
    spec.write_paths = json_member<std::vector<std::string>>(j, "write_paths");
    spec.last_attempt = json_member<int64_t>(j, "last_attempt");
    if (j.contains("admission_quota") && !j["admission_quota"].is_null()) {
      spec.has_admission_quota = true;
      spec.admission_quota = json_member<quota_snapshot>(j, "admission_quota");
    }
    if (j.contains("adopt") && !j["adopt"].is_null()) {
      const auto& a = j["adopt"];
      spec.adopting = true;
      spec.adopted.locator = json_member<std::string>(a, "locator");
      spec.adopted.keeper_pid = json_member<int64_t>(a, "keeper_pid");
      spec.adopted.keeper_start_token = json_member<std::string>(a, "keeper_start_token");
      spec.adopted.cli = json_member<std::string>(a, "cli");
      spec.adopted.model = json_member<std::string>(a, "model");
      if (a.contains("node"))
        spec.adopted.node = json_member<std::string>(a, "node");
    }
    return spec;
  } catch (const std::exception& e) {
    return status::invalid_argument("task spec: " + exception_text(e));
  }
}

} // namespace ad::runtime
