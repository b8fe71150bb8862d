#include "actors/scheduler/trace_points.hpp"

#include <memory>

#include "runtime/agents/adapter.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/workspace/checklist.hpp"
#include "runtime/replay/decision_records.hpp"
#include "runtime/state/model_json.hpp"
#include "runtime/trace/trace_writer.hpp"

namespace ad::actors {

namespace kinds = runtime::trace_kinds;
using runtime::json;

json task_spec_to_json(const task_spec& spec) {
  return json{{"name", spec.name},         {"stage", spec.stage},
              {"task_dir", spec.task_dir}, {"plan", spec.plan},
              {"review", spec.review},     {"lane", spec.lane},
              {"grade", spec.grade},       {"plan_number", spec.plan_number},
              {"work_unit_id", spec.work_unit_id}, {"write_paths", spec.write_paths},
              {"last_attempt", spec.last_attempt},
              {"admission_quota", spec.has_admission_quota ? json(spec.admission_quota) : json()}};
}

runtime::result<task_spec> task_spec_from_json(const json& j) {
  try {
    task_spec spec;
    spec.name = j.at("name").get<std::string>();
    spec.stage = j.at("stage").get<std::string>();
    spec.task_dir = j.at("task_dir").get<std::string>();
    spec.plan = j.at("plan").get<std::string>();
    spec.review = j.at("review").get<std::string>();
    spec.lane = j.at("lane").get<std::string>();
    spec.grade = j.at("grade").get<int>();
    spec.plan_number = j.at("plan_number").get<int64_t>();
    spec.work_unit_id = j.at("work_unit_id").get<std::string>();
    spec.write_paths = j.at("write_paths").get<std::vector<std::string>>();
    spec.last_attempt = j.at("last_attempt").get<int64_t>();
    if (j.contains("admission_quota") && !j["admission_quota"].is_null()) {
      spec.has_admission_quota = true;
      spec.admission_quota = j["admission_quota"].get<runtime::quota_snapshot>();
    }
    return spec;
  } catch (const std::exception& e) {
    return runtime::status::invalid_argument(std::string("task spec: ") + e.what());
  }
}

json target_choice_body(const target_choice& c) {
  return json{{"target", c.target},
              {"prompt", c.prompt},
              {"consume_handoff", c.consume_handoff},
              {"blocked", c.blocked},
              {"changes", runtime::changes_body(c.changes)}};
}

target_choice choose_target_traced(task_actor_state& s) {
  const auto& trace = s.ctx->trace;
  if (!trace)
    return choose_target(s);
  auto now = s.ctx->clk->now();
  auto frozen = std::make_shared<run_context>(*s.ctx);
  frozen->clk = std::make_shared<runtime::manual_clock>(now);
  auto saved = s.ctx;
  s.ctx = frozen;
  auto choice = choose_target(s);
  s.ctx = saved;
  auto edge = trace->edge(kinds::task_begin,
                          json{{"spec", task_spec_to_json(s.spec)},
                               {"task_state", runtime::json_or_text(runtime::task_to_json_text(s.st))},
                               {"cooldowns", runtime::to_json(s.cooldowns)},
                               {"now", now}});
  trace->decision(kinds::task_target, edge, target_choice_body(choice));
  return choice;
}

void trace_attempt_launch(const task_actor_state& s, const messages::start_attempt& req) {
  const auto& trace = s.ctx->trace;
  if (!trace)
    return;
  // The argv as the attempt builds it, with the per-attempt folder and the
  // fresh session id (both chosen by the attempt) left as placeholders.
  runtime::launch_spec launch;
  json argv = json::array();
  if (auto kind = runtime::parse_adapter_kind(req.adapter); kind.is_ok()) {
    launch.kind = *kind;
    launch.executable = req.executable;
    launch.model = req.model;
    launch.effort = req.effort;
    launch.prompt = req.prompt;
    launch.session_id = req.session_id.empty() ? "<session-id>" : req.session_id;
    launch.native_session_file = req.native_session_file;
    launch.plan_path = req.plan_path;
    launch.review_path = req.review_path;
    launch.command_template = req.command_template;
    launch.workspace = req.workspace;
    launch.attempt_dir = "<attempt-dir>";
    launch.task = req.task;
    launch.role = req.role;
    if (auto built = runtime::build_argv(launch); built.is_ok())
      argv = *built;
  }
  trace->decision(kinds::attempt_launch, 0,
                  json{{"task", req.task}, {"role", req.role}, {"attempt", req.attempt},
                       {"target", s.target}, {"adapter", req.adapter}, {"model", req.model},
                       {"argv", argv}, {"stage_budget", req.stage_budget},
                       {"retry_handoff_id", req.retry_handoff_id}});
}

int64_t trace_attempt_result(const task_actor_state& s, const messages::attempt_result& r) {
  const auto& trace = s.ctx->trace;
  if (!trace)
    return 0;
  // What the stage step after a success reads besides the result: the
  // runtime identity in the locator (worker) and the checklist (selfcheck).
  json observed = json::object();
  if (r.status == "succeeded" && s.spec.stage == "worker") {
    auto loc = runtime::read_locator_file(r.locator_path);
    observed["runtime_identity"] = loc.is_ok() ? json{{"cli", loc->cli}, {"model", loc->model}}
                                               : json{{"cli", ""}, {"model", ""}};
  } else if (r.status == "succeeded" && s.spec.stage == "selfcheck") {
    auto c = runtime::read_checklist_file(s.spec.review);
    observed["checklist"] = json{{"state", static_cast<int>(c.state)}, {"boxes", c.boxes},
                                 {"open", c.open}};
  }
  return trace->edge(kinds::attempt_result,
                     json{{"task", s.spec.name}, {"stage", s.spec.stage},
                          {"task_state", runtime::json_or_text(runtime::task_to_json_text(s.st))},
                          {"observed", observed},
                          {"identity", r.identity}, {"locator", r.locator_path},
                          {"status", r.status}, {"exit_code", r.exit_code},
                          {"failure_class", r.failure_class}, {"failure_source", r.failure_source},
                          {"evidence", r.evidence}, {"evidence_origin", r.evidence_origin},
                          {"termination_signal", r.termination_signal},
                          {"native_session_path", r.native_session_path},
                          {"has_reset_at", r.has_reset_at}, {"reset_at", r.reset_at},
                          {"cancelled", s.cancelled}});
}

namespace {

json stage_step_body(const std::string& task, const std::string& stage,
                     const runtime::stage_step& step) {
  return json{{"task", task}, {"stage", stage},
              {"next", std::string(runtime::to_string(step.next))},
              {"reason", step.reason}, {"pause_ms", step.pause},
              {"changes", runtime::changes_body(step.changes)}};
}

runtime::result<std::vector<runtime::replayed_decision>> replay_stage_step(const run_context& ctx,
                                                                           const json& body) {
  using out_t = std::vector<runtime::replayed_decision>;
  try {
    if (body.at("status") != "succeeded")
      return out_t{}; // a failure goes to the supervisor (supervisor.failure)
    auto task = body.at("task").get<std::string>();
    auto stage = body.at("stage").get<std::string>();
    auto st = runtime::task_from_json_text(runtime::dump_json(body.at("task_state")),
                                           "attempt.result.task_state");
    if (!st.is_ok())
      return st.error();
    const auto& observed = body.at("observed");
    runtime::stage_step step;
    if (stage == "worker") {
      struct runtime::attempt_identity actual{observed.at("runtime_identity").at("cli").get<std::string>(),
                                       observed.at("runtime_identity").at("model").get<std::string>()};
      step = runtime::after_worker_success(task, *st, ctx.pol, actual);
    } else if (stage == "selfcheck") {
      runtime::checklist_reading c;
      c.state = static_cast<runtime::checklist_state>(observed.at("checklist").at("state").get<int>());
      c.boxes = observed.at("checklist").at("boxes").get<std::size_t>();
      c.open = observed.at("checklist").at("open").get<std::size_t>();
      step = runtime::after_selfcheck_success(task, *st, ctx.pol, c);
    } else {
      return out_t{}; // review steps are recorded only (task.review_step)
    }
    return out_t{{std::string(kinds::stage_step), stage_step_body(task, stage, step)}};
  } catch (const std::exception& e) {
    return runtime::status::invalid_argument(std::string("attempt.result: ") + e.what());
  }
}

} // namespace

void trace_stage_step(const task_actor_state& s, int64_t cause, const runtime::stage_step& step) {
  const auto& trace = s.ctx->trace;
  if (!trace)
    return;
  trace->decision(s.spec.stage == "review" ? kinds::review_step : kinds::stage_step, cause,
                  stage_step_body(s.spec.name, s.spec.stage, step));
}

void trace_task_end(const task_actor_state& s, const std::string& outcome, const std::string& reason,
                    int64_t pause_ms) {
  const auto& trace = s.ctx->trace;
  if (!trace)
    return;
  trace->decision(kinds::task_end, 0,
                  json{{"task", s.spec.name}, {"stage", s.spec.stage}, {"outcome", outcome},
                       {"reason", reason}, {"pause_ms", pause_ms}});
}

void trace_scheduler(const run_context& ctx, std::string_view kind,
                     const std::vector<runtime::state_change>& changes,
                     const std::vector<task_spec>& start,
                     const std::vector<runtime::admission_entry>& examined) {
  if (!ctx.trace)
    return;
  json started = json::array();
  for (const auto& spec : start)
    started.push_back(json{{"task", spec.name}, {"stage", spec.stage}});
  json entries = json::array();
  for (const auto& e : examined)
    entries.push_back(json{{"task", e.task}, {"stage", std::string(runtime::to_string(e.stage))},
                           {"kind", std::string(runtime::to_string(e.kind))}, {"reason", e.reason}});
  ctx.trace->decision(kind, 0,
                      json{{"changes", runtime::changes_body(changes)}, {"start", started},
                           {"tasks", entries}});
}

void trace_run_exit(const run_context& ctx, const runtime::run_observation& obs,
                    const runtime::run_exit& exit) {
  if (!ctx.trace)
    return;
  auto edge = ctx.trace->edge(kinds::run_end, runtime::run_end_body(obs));
  ctx.trace->decision(kinds::run_exit, edge, runtime::run_exit_body(exit));
}

void add_task_replay_handlers(runtime::replay_handlers& handlers, const run_context& base) {
  auto ctx = std::make_shared<run_context>(base);
  handlers[std::string(kinds::attempt_result)] = {
    {std::string(kinds::stage_step)},
    [ctx](const json& body) { return replay_stage_step(*ctx, body); }};
  handlers[std::string(kinds::task_begin)] = {
    {std::string(kinds::task_target)},
    [ctx](const json& body) -> runtime::result<std::vector<runtime::replayed_decision>> {
      if (!body.is_object() || !body.contains("spec") || !body.contains("task_state") ||
          !body.contains("now") || !body["now"].is_number_integer())
        return runtime::status::invalid_argument("task.begin: needs spec, task_state and now");
      auto spec = task_spec_from_json(body["spec"]);
      if (!spec.is_ok())
        return spec.error();
      auto st = runtime::task_from_json_text(runtime::dump_json(body["task_state"]),
                                             "task.begin.task_state");
      if (!st.is_ok())
        return st.error();
      auto frozen = std::make_shared<run_context>(*ctx);
      frozen->clk = std::make_shared<runtime::manual_clock>(body["now"].get<runtime::millis>());
      task_actor_state s;
      s.ctx = frozen;
      s.spec = std::move(*spec);
      s.st = std::move(*st);
      if (body.contains("cooldowns")) {
        auto c = runtime::target_cooldowns_from_json(body["cooldowns"]);
        if (!c.is_ok())
          return c.error();
        s.cooldowns = std::move(*c);
      }
      return std::vector<runtime::replayed_decision>{
        {std::string(kinds::task_target), target_choice_body(choose_target(s))}};
    }};
}

} // namespace ad::actors
