#include "runtime/agents/attempt_output.hpp"

#include <gtest/gtest.h>

#include "runtime/agents/failure_classifier.hpp"

namespace ad::runtime {
namespace {

TEST(attempt_output, codex_review_violation_is_reported_once_and_classified) {
  attempt_output output(adapter_kind::codex, review_guard::codex_review);
  auto step = output.feed(output_channel::out,
                          R"({"type":"thread.started","thread_id":"th-1"})");
  EXPECT_EQ(step.discovered_session_id, "th-1");
  EXPECT_EQ(output.session_id(), "th-1");
  step = output.feed(output_channel::out,
                     R"({"type":"item.started","item":{"type":"collab_tool_call","tool":"spawn_agent"}})");
  EXPECT_EQ(step.collaboration_tool, "spawn_agent");
  ASSERT_EQ(step.rendered.size(), 1u);
  EXPECT_EQ(step.rendered[0], "collaboration tool: spawn_agent");
  step = output.feed(output_channel::out,
                     R"({"type":"item.started","item":{"type":"collab_tool_call","tool":"wait"}})");
  EXPECT_FALSE(step.collaboration_tool);
  EXPECT_EQ(output.review_violation(), "spawn_agent");

  failure_inputs in;
  in.exit.ended = agent_exit_status::how::signaled;
  in.exit.signal = 15;
  in.review_control_tool = output.review_violation();
  in.diagnostics_newest_first = output.diagnostics().newest_first();
  auto v = classify_attempt(in, default_compiled_failure_patterns());
  EXPECT_EQ(v.failure_class, "review-control-violation");
  EXPECT_NE(v.evidence.find("spawn_agent"), std::string::npos);
}

TEST(attempt_output, one_parse_per_line_only_where_a_cli_speaks_json) {
  auto ok_tool = parse_output_event(
    adapter_kind::claude, output_channel::out,
    R"({"type":"user","message":{"content":[{"type":"tool_result","content":"ok","is_error":false}]}})");
  EXPECT_TRUE(ok_tool.skipped);
  EXPECT_EQ(ok_tool.get(), nullptr);
  auto failed_tool = parse_output_event(
    adapter_kind::claude, output_channel::out,
    R"({"type":"user","message":{"content":[{"type":"tool_result","content":"no","is_error":true}]}})");
  EXPECT_FALSE(failed_tool.skipped);
  ASSERT_NE(failed_tool.get(), nullptr);
  EXPECT_EQ(failed_tool.get()->at("type"), "user");
  // The skip is claude's only: a codex line of the same shape is parsed.
  EXPECT_FALSE(parse_output_event(adapter_kind::codex, output_channel::out,
                                  R"({"type":"user","x":1})").skipped);
  EXPECT_EQ(parse_output_event(adapter_kind::claude, output_channel::err, R"({"type":"x"})").get(),
            nullptr);
  EXPECT_EQ(parse_output_event(adapter_kind::command, output_channel::out, R"({"type":"x"})").get(),
            nullptr);
  auto plain = parse_output_event(adapter_kind::claude, output_channel::out, "not json {");
  EXPECT_FALSE(plain.skipped);
  EXPECT_EQ(plain.get(), nullptr);
}

TEST(attempt_output, workers_are_not_guarded) {
  attempt_output output(adapter_kind::codex, review_guard::off);
  auto step = output.feed(output_channel::out,
                          R"({"type":"item.started","item":{"type":"collab_tool_call","tool":"spawn_agent"}})");
  EXPECT_FALSE(step.collaboration_tool);
  EXPECT_FALSE(output.review_violation());
}

TEST(attempt_output, diagnostics_and_agy_log_feed_classification) {
  attempt_output output(adapter_kind::agy, review_guard::off);
  output.feed(output_channel::out, "Working...");
  output.feed(output_channel::err, "Error: request failed");
  output.add_agy_cli_log("INFO quota check\nERROR status code: 429 RESOURCE_EXHAUSTED, retry in 10s\n",
                         default_compiled_failure_patterns());
  auto diags = output.diagnostics().newest_first();
  ASSERT_EQ(diags.size(), 2u);
  EXPECT_EQ(diags[0].origin, "agy-cli.log");
  failure_inputs in;
  in.exit.code = 1;
  in.diagnostics_newest_first = diags;
  in.observed_at = 1000;
  auto v = classify_attempt(in, default_compiled_failure_patterns());
  EXPECT_EQ(v.failure_class, "provider-quota");
  EXPECT_EQ(v.reset_at, 11000);
}

TEST(attempt_output, claude_tool_output_is_skipped_but_failed_tools_render) {
  attempt_output output(adapter_kind::claude, review_guard::off);
  auto ok = output.feed(
    output_channel::out,
    R"({"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"fine","is_error":false}]},"session_id":"s"})");
  EXPECT_TRUE(ok.rendered.empty());
  auto failed = output.feed(
    output_channel::out,
    R"({"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"No such file","is_error":true}]},"session_id":"s"})");
  ASSERT_EQ(failed.rendered.size(), 1u);
  EXPECT_EQ(failed.rendered[0], "tool error: No such file");
  EXPECT_EQ(failed.discovered_session_id, "s");
  // Same rendering as the standalone renderer.
  render_state state;
  EXPECT_TRUE(render_claude_line(
                R"({"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"fine","is_error":false}]}})",
                state)
                .lines.empty());
}

} // namespace
} // namespace ad::runtime
