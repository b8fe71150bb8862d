#include "actors/scheduler/trace_points.hpp"

#include <filesystem>
#include <memory>

#include "runtime/agents/adapter.hpp"
#include "runtime/attempt/attempt_run.hpp"
#include "runtime/run/active_probe.hpp"
#include "runtime/workspace/checklist.hpp"
#include "runtime/replay/decision_records.hpp"
#include "runtime/replay/scan_records.hpp"
#include "runtime/schedule/admission_json.hpp"
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

json reset_wait_body(const task_spec& spec, runtime::millis until, const parsed_step& wait) {
  return json{{"task", spec.name},        {"stage", spec.stage},
              {"target", wait.target},     {"until", until},
              {"delay_ms", wait.delay},    {"reason", wait.reason}};
}

begin_step decide_begin_traced(task_actor_state& s, runtime::millis now) {
  const auto& trace = s.ctx->trace;
  if (!trace)
    return decide_begin(s, now);
  auto frozen = std::make_shared<run_context>(*s.ctx);
  frozen->clk = std::make_shared<runtime::manual_clock>(now);
  auto saved = s.ctx;
  s.ctx = frozen;
  auto step = decide_begin(s, now);
  s.ctx = saved;
  s.begin_edge = trace->edge(kinds::task_begin,
                             json{{"spec", task_spec_to_json(s.spec)},
                                  {"task_state", runtime::json_or_text(runtime::task_to_json_text(s.st))},
                                  {"cooldowns", runtime::to_json(s.cooldowns)},
                                  {"now", now}});
  if (step.reset_until > 0)
    trace->decision(kinds::task_reset_wait, s.begin_edge,
                    reset_wait_body(s.spec, step.reset_until, step.reset_wait));
  else
    trace->decision(kinds::task_target, s.begin_edge, target_choice_body(step.choice));
  return step;
}

int64_t trace_launch_inputs(const task_actor_state& s, const std::string& target,
                            const std::string& prompt, const std::string& native_session,
                            const std::string& handoff) {
  const auto& trace = s.ctx->trace;
  if (!trace)
    return 0;
  return trace->edge(kinds::task_launch,
                     json{{"spec", task_spec_to_json(s.spec)},
                          {"task_state", runtime::json_or_text(runtime::task_to_json_text(s.st))},
                          {"target", target}, {"prompt", prompt},
                          {"native_session", native_session}, {"handoff", handoff}});
}

json launch_body(const std::string& target, const messages::start_attempt& req) {
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
    launch.provider = req.provider;
    launch.caps = {req.caps.detected, req.caps.version, req.caps.pi_approve,
                   req.caps.pi_session_id};
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
  return json{{"task", req.task}, {"role", req.role}, {"attempt", req.attempt},
              {"target", target}, {"adapter", req.adapter}, {"model", req.model},
              {"argv", argv}, {"stage_budget", req.stage_budget},
              {"retry_handoff_id", req.retry_handoff_id}};
}

void trace_attempt_launch(const task_actor_state& s, const messages::start_attempt& req,
                          int64_t cause) {
  if (s.ctx->trace)
    s.ctx->trace->decision(kinds::attempt_launch, cause, launch_body(s.target, req));
}

namespace {

// A locator path with its attempt folder (named with the time the attempt
// opened) as the placeholder "<attempt-dir>", as in attempt.launch's argv.
std::string placeholder_locator(const std::string& locator) {
  if (locator.empty())
    return locator;
  std::filesystem::path p(locator);
  return (p.parent_path().parent_path() / "<attempt-dir>" / p.filename()).string();
}

} // namespace

int64_t trace_attempt_result(const task_actor_state& s, const messages::attempt_result& r,
                             const success_reading* reading) {
  const auto& trace = s.ctx->trace;
  if (!trace)
    return 0;
  // What the stage step after a success reads besides the result (the
  // reading it is decided on): the runtime identity in the locator
  // (worker), the checklist (self-check) or the review reading.
  json observed = json::object();
  if (reading && s.spec.stage == "worker") {
    observed["runtime_identity"] = json{{"cli", reading->runtime_identity.cli},
                                        {"model", reading->runtime_identity.model}};
  } else if (reading && s.spec.stage == "selfcheck") {
    const auto& c = reading->checklist;
    observed["checklist"] = json{{"state", static_cast<int>(c.state)}, {"boxes", c.boxes},
                                 {"open", c.open}};
  } else if (reading) {
    observed["review"] = runtime::review_reading_body(reading->review);
  }
  // The classification as the attempt decided it, on the inputs it had,
  // and the work-log rows it wrote (which appends succeeded is an edge fact;
  // the rows' content is decided).
  if (!r.classification_json.empty()) {
    auto doc = runtime::json_or_text(r.classification_json);
    if (doc.is_object() && doc.contains("inputs") && doc.contains("verdict")) {
      json rows = doc.contains("rows") && doc["rows"].is_array() ? doc["rows"] : json::array();
      json written = json::array();
      for (auto& row : rows) {
        written.push_back(row.value("event", ""));
        row["locator"] = placeholder_locator(row.value("locator", ""));
      }
      json body{{"task", s.spec.name},
                {"stage", s.spec.stage},
                {"identity", r.identity},
                {"attempt", s.attempt_number},
                {"model", s.attempt_model},
                {"locator", placeholder_locator(r.locator_path)},
                {"rows_written", written},
                {"inputs", doc["inputs"]}};
      // Its lines went into the trace as attempt.line edges: replay reads
      // the diagnostics from them (and from the files read after them).
      if (doc.value("line_edges", false)) {
        body["line_edges"] = true;
        body["file_diagnostics"] = doc.value("file_diagnostics", json::array());
      }
      // An attempt host in another process kept them in memory: they enter
      // the trace now, before the classification that reads them.
      if (doc.contains("line_records") && doc["line_records"].is_array()) {
        std::vector<runtime::trace_record> kept;
        for (const auto& j : doc["line_records"])
          if (auto r = runtime::trace_record_from_json(j); r.is_ok())
            kept.push_back(std::move(*r));
        trace->append_kept(kept);
      }
      auto exit = trace->edge(kinds::attempt_exit, body);
      trace->decision(kinds::attempt_classified, exit, doc["verdict"]);
      for (const auto& row : rows)
        trace->decision(kinds::worklog_row, exit, row);
    }
  }
  return trace->edge(kinds::attempt_result,
                     json{{"task", s.spec.name}, {"stage", s.spec.stage},
                          {"task_dir", s.spec.task_dir},
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

json task_end_body(const std::string& task, const std::string& stage, const std::string& outcome,
                   const std::string& reason, int64_t pause_ms) {
  return json{{"task", task}, {"stage", stage}, {"outcome", outcome},
              {"reason", reason}, {"pause_ms", pause_ms}};
}

json stage_step_body(const std::string& task, const std::string& stage,
                     const runtime::stage_step& step) {
  return json{{"task", task}, {"stage", stage},
              {"next", std::string(runtime::to_string(step.next))},
              {"reason", step.reason}, {"pause_ms", step.pause},
              {"changes", runtime::changes_body(step.changes)}};
}

runtime::result<success_reading> success_reading_from_json(const std::string& stage,
                                                           const json& observed) {
  try {
    success_reading reading;
    if (stage == "worker") {
      reading.runtime_identity = {observed.at("runtime_identity").at("cli").get<std::string>(),
                                  observed.at("runtime_identity").at("model").get<std::string>()};
    } else if (stage == "selfcheck") {
      auto& c = reading.checklist;
      c.state =
        static_cast<runtime::checklist_state>(observed.at("checklist").at("state").get<int>());
      c.boxes = observed.at("checklist").at("boxes").get<std::size_t>();
      c.open = observed.at("checklist").at("open").get<std::size_t>();
    } else {
      auto review = runtime::review_reading_from_json(observed.at("review"));
      if (!review.is_ok())
        return review.error();
      reading.review = std::move(*review);
    }
    return reading;
  } catch (const std::exception& e) {
    return runtime::status::invalid_argument(std::string("attempt.result observed: ") + e.what());
  }
}

void trace_stage_step(const task_actor_state& s, int64_t cause, const runtime::stage_step& step) {
  const auto& trace = s.ctx->trace;
  if (!trace)
    return;
  trace->decision(s.spec.stage == "review" ? kinds::review_step : kinds::stage_step, cause,
                  stage_step_body(s.spec.name, s.spec.stage, step));
}

void trace_task_end(const task_actor_state& s, const std::string& outcome, const std::string& reason,
                    int64_t pause_ms, int64_t cause) {
  if (s.ctx->trace)
    s.ctx->trace->decision(kinds::task_end, cause,
                           task_end_body(s.spec.name, s.spec.stage, outcome, reason, pause_ms));
}

namespace {

std::string_view stop_during(const task_actor_state& s) {
  if (s.attempt_running)
    return "attempt";
  return s.on_wake ? "waiting" : "busy";
}

} // namespace

std::vector<runtime::replayed_decision> stop_decisions(const std::string& task,
                                                       const std::string& stage,
                                                       std::string_view during,
                                                       const std::string& identity) {
  if (during == "attempt")
    return {{std::string(kinds::attempt_cancel),
             json{{"task", task}, {"stage", stage}, {"identity", identity}}}};
  if (during == "waiting")
    return {{std::string(kinds::task_end),
             task_end_body(task, stage, "cancelled", "stopped by shutdown", 0)}};
  return {}; // busy: decided after the open request's answer (not fed)
}

std::string error_end_reason(std::string_view peer, const std::string& error) {
  return std::string(peer) + ": " + error;
}

int64_t trace_task_error(const task_actor_state& s, std::string_view peer,
                         const std::string& error) {
  if (!s.ctx->trace)
    return 0;
  return s.ctx->trace->edge(kinds::task_error, json{{"task", s.spec.name},
                                                    {"stage", s.spec.stage},
                                                    {"peer", peer},
                                                    {"error", error}});
}

int64_t trace_task_stop(const task_actor_state& s) {
  if (!s.ctx->trace)
    return 0;
  return s.ctx->trace->edge(kinds::task_stop,
                            json{{"task", s.spec.name}, {"stage", s.spec.stage},
                                 {"during", stop_during(s)}, {"identity", s.identity}});
}

void trace_task_wake(const task_actor_state& s) {
  if (s.ctx->trace)
    s.ctx->trace->edge(kinds::task_wake, json{{"task", s.spec.name},
                                              {"stage", s.spec.stage},
                                              {"now", s.ctx->clk->now()}});
}

void trace_attempt_cancel(const task_actor_state& s, int64_t cause) {
  if (!s.ctx->trace)
    return;
  for (auto& d : stop_decisions(s.spec.name, s.spec.stage, "attempt", s.identity))
    s.ctx->trace->decision(d.kind, cause, d.body);
}

void trace_scheduler(const run_context& ctx, std::string_view kind, int64_t cause,
                     const std::vector<runtime::state_change>& changes,
                     const std::vector<task_spec>& start) {
  if (!ctx.trace)
    return;
  json started = json::array();
  for (const auto& spec : start)
    started.push_back(json{{"task", spec.name}, {"stage", spec.stage}});
  ctx.trace->decision(kind, cause,
                      json{{"changes", runtime::changes_body(changes)}, {"start", started}});
}

int64_t trace_scheduler_inbound(const run_context& ctx, std::string_view message,
                                runtime::millis now, const std::function<json()>& detail) {
  if (!ctx.trace)
    return 0;
  json body = detail ? detail() : json::object();
  body["message"] = message;
  body["now"] = now;
  return ctx.trace->edge(kinds::scheduler_inbound, body);
}

void trace_scan(const run_context& ctx, const runtime::result<runtime::scan_refresh>& refreshed,
                const runtime::task_scan_view& scan) {
  if (!ctx.trace)
    return;
  if (!refreshed.is_ok()) {
    ctx.trace->edge(kinds::scheduler_scan, json{{"error", refreshed.error().message()}});
    return;
  }
  json tasks = json::array();
  if (refreshed->full) {
    for (const auto& [name, t] : scan.tasks())
      tasks.push_back(runtime::scanned_task_to_json(t));
  } else {
    for (const auto& name : refreshed->changed)
      if (const auto* t = scan.find(name))
        tasks.push_back(runtime::scanned_task_to_json(*t));
  }
  ctx.trace->edge(kinds::scheduler_scan, json{{"full", refreshed->full},
                                              {"changed", refreshed->changed},
                                              {"tasks", std::move(tasks)}});
}

void trace_admission(const run_context& ctx, const runtime::planner_result& planned) {
  if (!ctx.trace)
    return;
  if (!planned.sightings.empty()) {
    auto seen =
      ctx.trace->edge(kinds::scheduler_sightings, runtime::sightings_body(planned.sightings));
    // The planner's changes before the claims it adds last.
    std::vector<runtime::state_change> sighted(
      planned.changes.begin(),
      planned.changes.end() - static_cast<std::ptrdiff_t>(planned.claims_taken.size()));
    ctx.trace->decision(kinds::scheduler_sighted, seen,
                        json{{"changes", runtime::changes_body(sighted)}});
  }
  auto edge =
    ctx.trace->edge(kinds::scheduler_admission, runtime::admission_input_to_json(planned.input));
  runtime::admission_plan plan;
  plan.entries = planned.examined;
  plan.admitted = planned.admitted;
  plan.claims_taken = planned.claims_taken;
  plan.capacity_waiters = planned.capacity_waiters;
  plan.occupied = planned.occupied;
  ctx.trace->decision(kinds::scheduler_admitted, edge, runtime::admission_plan_to_json(plan));
}

runtime::active_review review_active_stages_traced(
  const run_context& ctx, const std::vector<runtime::active_stage_reading>& readings) {
  auto review = runtime::decide_active_stages(readings, &ctx.pol);
  if (ctx.trace) {
    auto edge =
      ctx.trace->edge(kinds::scheduler_liveness, runtime::active_stage_readings_body(readings));
    ctx.trace->decision(kinds::scheduler_active_stages, edge, runtime::active_review_body(review));
  }
  return review;
}

void trace_work_logs(const run_context& ctx, const std::map<std::string, bool>& writable) {
  if (ctx.trace)
    ctx.trace->edge(kinds::scheduler_work_logs, runtime::json{{"writable", writable}});
}

void trace_group_close(const run_context& ctx, const runtime::group_reading& group,
                       const runtime::group_close& closed) {
  if (!ctx.trace)
    return;
  auto edge = ctx.trace->edge(kinds::scheduler_group, runtime::group_reading_body(group));
  ctx.trace->decision(kinds::scheduler_group_close, edge, runtime::group_close_body(closed));
}

void trace_reconcile(const run_context& ctx, const runtime::reconcile_input& in,
                     const runtime::reconcile_outcome& out) {
  if (!ctx.trace)
    return;
  auto edge = ctx.trace->edge(kinds::scheduler_reconcile, runtime::reconcile_input_body(in));
  ctx.trace->decision(kinds::scheduler_reconciled, edge, runtime::reconcile_outcome_body(out));
}

void trace_retry_blocked(const run_context& ctx,
                         const std::map<std::string, runtime::task_state>& tasks,
                         runtime::millis now, const std::vector<runtime::state_change>& changes) {
  if (!ctx.trace)
    return;
  auto edge = ctx.trace->edge(kinds::scheduler_retry_blocked,
                              runtime::retry_blocked_body({tasks, now}));
  ctx.trace->decision(kinds::scheduler_retry_cleared, edge,
                      json{{"changes", runtime::changes_body(changes)}});
}

void trace_run_exit(const run_context& ctx, const runtime::run_observation& obs,
                    const runtime::run_exit& exit) {
  if (!ctx.trace)
    return;
  auto edge = ctx.trace->edge(kinds::run_end, runtime::run_end_body(obs));
  ctx.trace->decision(kinds::run_exit, edge, runtime::run_exit_body(exit));
}

} // namespace ad::actors
