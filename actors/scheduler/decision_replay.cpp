#include "actors/scheduler/decision_replay.hpp"

#include <memory>

#include "actors/scheduler/trace_points.hpp"
#include "runtime/agents/failure_record.hpp"
#include "runtime/attempt/attempt_run.hpp"
#include "runtime/replay/decision_records.hpp"
#include "runtime/replay/output_replay.hpp"
#include "runtime/state/model_json.hpp"
#include "runtime/worklog/work_log.hpp"

namespace ad::actors {

namespace {

namespace kinds = runtime::trace_kinds;
using runtime::json;

runtime::result<std::vector<runtime::replayed_decision>> replay_stage_step(const run_context& ctx,
                                                                           const json& body) {
  using out_t = std::vector<runtime::replayed_decision>;
  try {
    auto task = body.at("task").get<std::string>();
    auto stage = body.at("stage").get<std::string>();
    // A stopped run ends the task whatever the attempt's end.
    if (body.at("cancelled").get<bool>())
      return out_t{{std::string(kinds::task_end),
                    task_end_body(task, stage, "cancelled", "stopped by shutdown", 0)}};
    if (body.at("status") != "succeeded")
      return out_t{}; // a failure goes to the supervisor (supervisor.failure)
    auto st = runtime::task_from_json_text(runtime::dump_json(body.at("task_state")),
                                           "attempt.result.task_state");
    if (!st.is_ok())
      return st.error();
    auto reading = success_reading_from_json(stage, body.at("observed"));
    if (!reading.is_ok())
      return reading.error();
    task_spec spec;
    spec.name = task;
    spec.stage = stage;
    spec.task_dir = body.at("task_dir").get<std::string>();
    auto step = step_after_success(spec, *st, ctx.pol, *reading);
    auto kind = stage == "review" ? kinds::review_step : kinds::stage_step;
    // The task ends with the step once its changes are durable.
    return out_t{{std::string(kind), stage_step_body(task, stage, step)},
                 {std::string(kinds::task_end),
                  task_end_body(task, stage, std::string(runtime::to_string(step.next)),
                                step.reason, step.pause)}};
  } catch (const std::exception& e) {
    return runtime::status::invalid_argument(std::string("attempt.result: ") + e.what());
  }
}

} // namespace

void add_attempt_replay_handlers(runtime::replay_handlers& handlers, const run_context& base) {
  const auto& pol = base.pol;
  // Classification under the replayed policy's pattern table (compiled
  // once; a table that does not compile is the error of every edge).
  auto patterns = std::make_shared<runtime::result<runtime::compiled_failure_patterns>>(
    runtime::status::invalid_argument("not compiled"));
  if (pol.failure_patterns.empty()) {
    *patterns = runtime::default_compiled_failure_patterns();
  } else {
    *patterns = runtime::compile_failure_patterns(pol.failure_patterns);
  }
  auto lines = std::shared_ptr<runtime::output_replay>(
    new runtime::output_replay(patterns->is_ok() ? &patterns->value() : nullptr),
    [patterns](runtime::output_replay* p) { delete p; }); // keeps the table alive
  handlers[std::string(runtime::trace_kinds::attempt_line)] = {
    {std::string(runtime::trace_kinds::attempt_review_control),
     std::string(runtime::trace_kinds::attempt_no_progress)},
    [lines](const json& body) { return lines->line(body); }};
  handlers[std::string(runtime::trace_kinds::attempt_follow)] = {
    {}, [lines](const json& body) { return lines->follow(body); }};
  handlers[std::string(runtime::trace_kinds::attempt_phase)] = {
    {}, [lines](const json& body) { return lines->phase(body); }};
  handlers[std::string(runtime::trace_kinds::attempt_silence)] = {
    {std::string(runtime::trace_kinds::attempt_silence_due)},
    [lines](const json& body) { return lines->silence(body); }};
  handlers[std::string(kinds::attempt_exit)] = {
    {std::string(kinds::attempt_classified), std::string(kinds::worklog_row)},
    [patterns, lines](const json& body)
      -> runtime::result<std::vector<runtime::replayed_decision>> {
      if (!patterns->is_ok())
        return patterns->error();
      if (!body.is_object() || !body.contains("inputs"))
        return runtime::status::invalid_argument("attempt.exit: needs inputs");
      auto in = runtime::failure_inputs_from_json(body["inputs"]);
      if (!in.is_ok())
        return in.error();
      if (body.value("line_edges", false)) {
        auto files = runtime::diagnostics_from_json(body.value("file_diagnostics", json()));
        if (!files.is_ok())
          return files.error().with_context("attempt.exit file_diagnostics");
        *in = lines->finish(body.value("identity", std::string()), std::move(*in), *files);
      }
      auto verdict = runtime::classify_attempt(*in, **patterns);
      std::vector<runtime::replayed_decision> out{
        {std::string(kinds::attempt_classified), runtime::failure_verdict_to_json(verdict)}};
      // The rows the attempt wrote: START when it began, FINISH with the
      // verdict (older traces name none).
      try {
        if (body.contains("rows_written"))
          for (const auto& event : runtime::json_array_member(body, "rows_written")) {
            runtime::work_log_event row{
              event.get<std::string>(), runtime::json_member<std::string>(body, "task"),
              runtime::json_member<std::string>(body, "stage"),
              runtime::json_member<int>(body, "attempt"),
              runtime::json_member<std::string>(body, "model"),
              event == "START" ? std::string("running")
                               : runtime::finish_row_result(verdict, *in),
              runtime::json_member<std::string>(body, "locator")};
            out.push_back({std::string(kinds::worklog_row), runtime::work_log_event_to_json(row)});
          }
      } catch (const std::exception& e) {
        return runtime::status::invalid_argument(std::string("attempt.exit: ") + e.what());
      }
      return out;
    }};
}

void add_task_replay_handlers(runtime::replay_handlers& handlers, const run_context& base) {
  auto ctx = std::make_shared<run_context>(base);
  handlers[std::string(kinds::attempt_result)] = {
    {std::string(kinds::stage_step), std::string(kinds::review_step), std::string(kinds::task_end)},
    [ctx](const json& body) { return replay_stage_step(*ctx, body); }};
  // A block step ends the task (task.end "blocked", caused by the
  // supervisor's edge): added to the supervisor's handler when present.
  if (auto sup = handlers.find(kinds::supervisor_failure); sup != handlers.end()) {
    sup->second.produces.push_back(std::string(kinds::task_end));
    sup->second.fn = [inner = sup->second.fn](const json& body)
      -> runtime::result<std::vector<runtime::replayed_decision>> {
      auto out = inner(body);
      if (!out.is_ok())
        return out;
      try {
        std::vector<runtime::replayed_decision> ends;
        for (const auto& d : *out)
          if (d.kind == kinds::supervisor_step && d.body.at("step") == "block") {
            const auto& failure = body.at("request").at("failure");
            const auto& detail = d.body.at("detail");
            ends.push_back({std::string(kinds::task_end),
                            task_end_body(failure.at("task").get<std::string>(),
                                          failure.at("stage").get<std::string>(), "blocked",
                                          detail.value("reason", std::string()), 0)});
          }
        out->insert(out->end(), ends.begin(), ends.end());
        return out;
      } catch (const std::exception& e) {
        return runtime::status::invalid_argument(std::string("supervisor.failure: ") + e.what());
      }
    };
  }
  handlers[std::string(kinds::task_stop)] = {
    {std::string(kinds::attempt_cancel), std::string(kinds::task_end)},
    [](const json& body) -> runtime::result<std::vector<runtime::replayed_decision>> {
      try {
        return stop_decisions(runtime::json_member<std::string>(body, "task"),
                              runtime::json_member<std::string>(body, "stage"),
                              runtime::json_member<std::string>(body, "during"),
                              runtime::json_member<std::string>(body, "identity"));
      } catch (const std::exception& e) {
        return runtime::status::invalid_argument(std::string("task.stop: ") + e.what());
      }
    },
    nullptr,
    // A stop that found a request open ends the task after the answer,
    // as that answer decides (cancelled, or blocked by a block step): only
    // the task actor itself replays it.
    [](const json& body) {
      auto during = body.is_object() ? body.find("during") : body.end();
      return during == body.end() || *during != "busy";
    }};
  handlers[std::string(kinds::task_error)] = {
    {std::string(kinds::task_end)},
    [](const json& body) -> runtime::result<std::vector<runtime::replayed_decision>> {
      try {
        using runtime::json_member;
        return std::vector<runtime::replayed_decision>{
          {std::string(kinds::task_end),
           task_end_body(json_member<std::string>(body, "task"),
                         json_member<std::string>(body, "stage"), "error",
                         error_end_reason(json_member<std::string>(body, "peer"),
                                          json_member<std::string>(body, "error")),
                         0)}};
      } catch (const std::exception& e) {
        return runtime::status::invalid_argument(std::string("task.error: ") + e.what());
      }
    }};
  handlers[std::string(kinds::task_launch)] = {
    {std::string(kinds::attempt_launch)},
    [ctx](const json& body) -> runtime::result<std::vector<runtime::replayed_decision>> {
      using out_t = std::vector<runtime::replayed_decision>;
      try {
        auto spec = task_spec_from_json(body.at("spec"));
        if (!spec.is_ok())
          return spec.error();
        auto st = runtime::task_from_json_text(runtime::dump_json(body.at("task_state")),
                                               "task.launch.task_state");
        if (!st.is_ok())
          return st.error();
        auto target_id = body.at("target").get<std::string>();
        const auto* target = ctx->pol.find_target(target_id);
        if (!target)
          return out_t{}; // the task blocks on an unknown target: no launch
        task_actor_state s;
        s.ctx = ctx;
        s.spec = std::move(*spec);
        s.st = std::move(*st);
        int64_t attempt = ++s.spec.last_attempt;
        auto req = make_start_attempt(s, *target, attempt, body.at("prompt").get<std::string>(),
                                      body.at("native_session").get<std::string>(),
                                      body.at("handoff").get<std::string>());
        return out_t{{std::string(kinds::attempt_launch), launch_body(target_id, req)}};
      } catch (const std::exception& e) {
        return runtime::status::invalid_argument(std::string("task.launch: ") + e.what());
      }
    }};
  handlers[std::string(kinds::task_begin)] = {
    {std::string(kinds::task_target), std::string(kinds::task_reset_wait),
     std::string(kinds::task_end)},
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
      auto now = body["now"].get<runtime::millis>();
      auto step = decide_begin(s, now);
      if (step.reset_until > 0)
        return std::vector<runtime::replayed_decision>{
          {std::string(kinds::task_reset_wait),
           reset_wait_body(s.spec, step.reset_until, step.reset_wait)}};
      const auto& choice = step.choice;
      std::vector<runtime::replayed_decision> out{
        {std::string(kinds::task_target), target_choice_body(choice)}};
      // A block (not a cool-down wait) ends the task.
      if (!(choice.wait_until > now) && !choice.blocked.empty())
        out.push_back({std::string(kinds::task_end),
                       task_end_body(s.spec.name, s.spec.stage, "blocked", choice.blocked, 0)});
      return out;
    }};
}

} // namespace ad::actors
