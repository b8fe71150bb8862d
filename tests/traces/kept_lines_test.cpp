// An attempt host without the trace writer keeps its attempt's lines in
// memory and sends them with the result (actors/attempt): the traced
// process writes them before that attempt's classification
// (trace_attempt_result), and replay classifies the attempt from them.
#include <gtest/gtest.h>

#include "actors/scheduler/decision_replay.hpp"
#include "actors/scheduler/trace_points.hpp"
#include "runtime/agents/attempt_output.hpp"
#include "runtime/agents/failure_record.hpp"
#include "runtime/replay/output_replay.hpp"
#include "runtime/trace/trace_writer.hpp"
#include "tools/replay/replay_run.hpp"

namespace ad::tools {
namespace {

using runtime::json;

constexpr const char* identity = "grp__01_t__p1__worker__a01";

// What the host kept: the agent started, printed `line` on stderr, exited 3.
std::shared_ptr<runtime::trace_writer> kept_by_the_host(const std::string& line) {
  auto host = runtime::trace_writer::in_memory(runtime::trace_paths{});
  host->edge(runtime::trace_kinds::attempt_follow,
             runtime::attempt_follow_body(identity, {1'000, 2'000, 0}, 0));
  host->edge(runtime::trace_kinds::attempt_line,
             runtime::attempt_line_body(identity, runtime::adapter_kind::command, "worker",
                                        runtime::output_channel::err, line, false, 0, 10));
  return host;
}

// The classification the host sends: its inputs and verdict as the live
// attempt decided them from `said`, and the records it kept of `printed`.
std::string classification(const std::string& said, const std::string& printed) {
  runtime::attempt_output out(runtime::adapter_kind::command, runtime::review_guard::off);
  out.feed(runtime::output_channel::err, said);
  runtime::failure_inputs in;
  in.exit.code = 3;
  in.diagnostics_newest_first = out.diagnostics().newest_first();
  in.observed_at = 20;
  auto verdict = runtime::classify_attempt(in, runtime::default_compiled_failure_patterns());
  json records = json::array();
  for (const auto& r : kept_by_the_host(printed)->kept_records())
    records.push_back(runtime::to_json(r));
  return runtime::dump_json(json{{"inputs", runtime::failure_inputs_to_json(in)},
                                 {"verdict", runtime::failure_verdict_to_json(verdict)},
                                 {"rows", json::array()},
                                 {"line_edges", true},
                                 {"file_diagnostics", json::array()},
                                 {"line_records", records}});
}

// The traced process's records of that attempt's result.
runtime::trace_file traced_result(const std::string& said, const std::string& printed) {
  auto ctx = std::make_shared<actors::run_context>();
  ctx->trace = runtime::trace_writer::in_memory(replay_roots());
  actors::task_actor_state s;
  s.ctx = ctx;
  s.spec.name = "grp/01_t";
  s.spec.stage = "worker";
  s.attempt_number = 1;
  messages::attempt_result r;
  r.identity = identity;
  r.status = "failed";
  r.exit_code = 3;
  r.classification_json = classification(said, printed);
  actors::trace_attempt_result(s, r, nullptr);
  runtime::trace_file t;
  t.records = ctx->trace->kept_records();
  return t;
}

runtime::replay_report replay_attempts(const runtime::trace_file& t) {
  runtime::replay_handlers h;
  actors::run_context base;
  actors::add_attempt_replay_handlers(h, base);
  return runtime::replay_trace(t, h, replay_roots());
}

const std::string context_line = "error: maximum context length is 200000 tokens";

TEST(kept_lines, lines_sent_with_a_result_are_traced_before_its_classification) {
  auto t = traced_result(context_line, context_line);
  std::vector<std::string> kinds;
  for (const auto& r : t.records)
    kinds.push_back(r.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"attempt.follow", "attempt.line", "attempt.exit",
                                             "attempt.classified", "attempt.result"}));
  EXPECT_EQ(t.records[1].body["text"], context_line);
  EXPECT_EQ(t.records[2].body["line_edges"], true);
  EXPECT_EQ(t.records[3].cause, t.records[2].seq);
  EXPECT_EQ(t.records[3].body["failure_class"], "context-limit");
}

TEST(kept_lines, replay_classifies_the_attempt_from_the_lines_sent) {
  auto same = replay_attempts(traced_result(context_line, context_line));
  EXPECT_FALSE(same.divergence) << runtime::render_divergence(*same.divergence);
  EXPECT_EQ(same.compared, 1);

  // The host sent other lines than the attempt classified: replay reads
  // the lines, so the classification diverges.
  auto other = replay_attempts(traced_result(context_line, "all done"));
  ASSERT_TRUE(other.divergence);
  EXPECT_EQ(other.divergence->kind, "attempt.classified");
  EXPECT_EQ(other.divergence->expected["failure_class"], "context-limit");
  EXPECT_NE(other.divergence->actual["failure_class"], "context-limit");
}

} // namespace
} // namespace ad::tools
