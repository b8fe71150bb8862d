#include "runtime/replay/attempt_replay.hpp"

#include <memory>

#include "runtime/agents/failure_record.hpp"
#include "runtime/attempt/attempt_run.hpp"
#include "runtime/records/decision_records.hpp"
#include "runtime/replay/output_replay.hpp"
#include "runtime/state/model_json.hpp"
#include "runtime/core/exception_text.hpp"
#include "runtime/worklog/work_log.hpp"

namespace ad::runtime {

namespace {

namespace kinds = runtime::trace_kinds;
using runtime::json;

} // namespace

void add_attempt_replay_handlers(replay_handlers& handlers, const policy& pol) {
  // Classification under the replayed policy's pattern table (compiled
  // once; a table that does not compile is the error of every edge).
  auto patterns = std::make_shared<runtime::result<runtime::compiled_failure_patterns>>(
    runtime::policy_failure_patterns(pol.failure_patterns));
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
      // verdict and what the attempt spent (older traces name neither).
      runtime::token_usage spent;
      if (body.contains("usage")) {
        auto u = runtime::usage_from_json(body["usage"]);
        if (!u.is_ok())
          return u.error().with_context("attempt.exit usage");
        spent = *u;
      }
      try {
        if (body.contains("rows_written"))
          for (const auto& event : runtime::json_array_member(body, "rows_written")) {
            runtime::work_log_event row{
              event.get<std::string>(), runtime::json_member<std::string>(body, "task"),
              runtime::json_member<std::string>(body, "stage"),
              runtime::json_member<int>(body, "attempt"),
              runtime::json_member<std::string>(body, "model"),
              event == "START" ? std::string("running")
                               : runtime::finish_row_result(verdict, *in, spent),
              runtime::json_member<std::string>(body, "locator")};
            out.push_back({std::string(kinds::worklog_row), runtime::work_log_event_to_json(row)});
          }
      } catch (const std::exception& e) {
        return runtime::status::invalid_argument(std::string("attempt.exit: ") + exception_text(e));
      }
      return out;
    }};
}

} // namespace ad::runtime
