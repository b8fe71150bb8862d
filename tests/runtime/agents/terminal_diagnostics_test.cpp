#include "runtime/agents/terminal_diagnostics.hpp"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

std::optional<terminal_diagnostic> out(adapter_kind kind, std::string_view line) {
  return detect_terminal_diagnostic(kind, output_channel::out, line);
}

TEST(terminal_diagnostics, every_stderr_line_counts_except_blank_ones) {
  auto d = detect_terminal_diagnostic(adapter_kind::codex, output_channel::err, "boom\r");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->origin, "stderr");
  EXPECT_EQ(d->text, "boom");
  EXPECT_FALSE(detect_terminal_diagnostic(adapter_kind::pi, output_channel::err, "  \t"));
}

TEST(terminal_diagnostics, codex_failed_turns_and_errors) {
  auto d = out(adapter_kind::codex, R"({"type":"turn.failed","error":{"message":"x"}})");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->origin, "codex:turn.failed");
  d = out(adapter_kind::codex, R"({"type":"error","message":"Reconnecting"})");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->origin, "codex:error");
  EXPECT_FALSE(out(adapter_kind::codex, R"({"type":"item.completed","item":{"type":"error"}})"));
  EXPECT_FALSE(out(adapter_kind::codex, "Error: plain stdout text is not a codex diagnostic"));
}

TEST(terminal_diagnostics, claude_rejections_error_results_and_system_errors) {
  auto d = out(adapter_kind::claude,
               R"({"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1}})");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->origin, "claude:rate_limit_event");
  EXPECT_FALSE(out(adapter_kind::claude,
                   R"({"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning"}})"));

  d = out(adapter_kind::claude,
          R"({"type":"result","subtype":"success","is_error":true,"duration_ms":429,"result":"API Error: 500","api_error_status":500,"session_id":"s"})");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->origin, "claude:result");
  // Only the typed failure fields are kept, in a fixed order.
  EXPECT_EQ(d->text,
            R"({"type":"result","subtype":"success","is_error":true,"api_error_status":500,"result":"API Error: 500"})");
  d = out(adapter_kind::claude, R"({"type":"result","subtype":"error_during_execution"})");
  ASSERT_TRUE(d);
  EXPECT_FALSE(out(adapter_kind::claude,
                   R"({"type":"result","subtype":"success","is_error":false,"result":"429"})"));

  d = out(adapter_kind::claude, R"({"type":"system","subtype":"error_api","message":"x"})");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->origin, "claude:system");
  EXPECT_FALSE(out(adapter_kind::claude, R"({"type":"system","subtype":"init"})"));
  EXPECT_FALSE(out(adapter_kind::claude,
                   R"({"type":"assistant","message":{"content":[{"type":"text","text":"rate limit"}]}})"));
}

TEST(terminal_diagnostics, agy_error_events_and_error_lines) {
  EXPECT_EQ(out(adapter_kind::agy, R"({"type":"fatal","message":"x"})")->origin, "agy:event");
  EXPECT_TRUE(out(adapter_kind::agy, R"({"type":"progress","severity":"ERROR"})"));
  EXPECT_TRUE(out(adapter_kind::agy, R"({"type":"request","status":"rejected","code":429})"));
  EXPECT_FALSE(out(adapter_kind::agy, R"({"type":"request","status":"rejected"})"));
  EXPECT_FALSE(out(adapter_kind::agy, R"({"type":"message","severity":"error","text":"x"})"));
  EXPECT_FALSE(out(adapter_kind::agy, R"({"type":"tool_result","level":"error"})"));
  EXPECT_EQ(out(adapter_kind::agy, "  Fatal: no credentials")->origin, "agy:stdout");
  EXPECT_TRUE(out(adapter_kind::agy, "Provider error: upstream"));
  EXPECT_FALSE(out(adapter_kind::agy, "errors were fixed in src/a.cpp"));
  EXPECT_FALSE(out(adapter_kind::agy, "I handled the error case"));
}

TEST(terminal_diagnostics, pi_assistant_errors_and_command_stdout) {
  auto d = out(adapter_kind::pi,
               R"({"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"429 rate limited"}})");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->origin, "pi:message_end");
  EXPECT_NE(d->text.find("429 rate limited"), std::string::npos);
  EXPECT_FALSE(out(adapter_kind::pi,
                   R"({"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"stop"}})"));
  EXPECT_FALSE(out(adapter_kind::command, "error: 429"));
}

TEST(terminal_diagnostics, log_keeps_the_newest_fifty_newest_first) {
  diagnostic_log log;
  for (int i = 0; i < 120; ++i)
    log.add({"stderr", "line " + std::to_string(i)});
  auto all = log.newest_first();
  ASSERT_EQ(all.size(), 50u);
  EXPECT_EQ(all.front().text, "line 119");
  EXPECT_EQ(all.back().text, "line 70");
  log.add({"stderr", std::string(100000, 'z')});
  EXPECT_EQ(log.newest_first().front().text.size(), max_diagnostic_bytes);
}

TEST(terminal_diagnostics, codex_collaboration_tools_are_detected_when_started) {
  EXPECT_EQ(codex_collaboration_tool(
              R"({"type":"item.started","item":{"id":"i","type":"collab_tool_call","tool":"spawn_agent"}})"),
            "spawn_agent");
  EXPECT_FALSE(codex_collaboration_tool(
    R"({"type":"item.completed","item":{"type":"collab_tool_call","tool":"spawn_agent"}})"));
  EXPECT_FALSE(codex_collaboration_tool(
    R"({"type":"item.started","item":{"type":"collab_tool_call"}})"));
  EXPECT_FALSE(codex_collaboration_tool(
    R"({"type":"item.started","item":{"type":"command_execution","command":"collab_tool_call"}})"));
  EXPECT_FALSE(codex_collaboration_tool("collab_tool_call spawn_agent"));
  EXPECT_EQ(review_control_diagnostic("send_input").origin, "dispatcher:review-control");
}

TEST(terminal_diagnostics, agy_cli_log_keeps_real_quota_lines_only) {
  EXPECT_TRUE(is_agy_quota_line("HTTP 429"));
  EXPECT_TRUE(is_agy_quota_line("status code: 429"));
  EXPECT_TRUE(is_agy_quota_line("google.rpc: RESOURCE_EXHAUSTED"));
  EXPECT_TRUE(is_agy_quota_line("Too Many Requests"));
  EXPECT_TRUE(is_agy_quota_line("Quota exceeded for metric x"));
  EXPECT_TRUE(is_agy_quota_line("we have exhausted the daily quota"));
  EXPECT_TRUE(is_agy_quota_line("rate limit hit; retry after 30s"));
  EXPECT_FALSE(is_agy_quota_line("checking quota for project"));
  EXPECT_FALSE(is_agy_quota_line("quota: 512 requests remaining"));
  EXPECT_FALSE(is_agy_quota_line("took 4290 ms"));

  std::string log;
  for (int i = 0; i < 300; ++i)
    log += "INFO tick " + std::to_string(i) + "\n";
  log += "INFO quota refreshed\n";
  log += "ERROR HTTP 429 Too Many Requests\n";
  log += "ERROR backend watchdog restarted the model\n";
  log += "ERROR something unrelated\n";
  auto found = agy_log_diagnostics(log, default_compiled_failure_patterns());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].text, "ERROR HTTP 429 Too Many Requests");
  EXPECT_EQ(found[0].origin, "agy-cli.log");
  EXPECT_EQ(found[1].text, "ERROR backend watchdog restarted the model");

  // Only the last 200 lines are read.
  std::string old = "ERROR HTTP 429 Too Many Requests\n";
  for (int i = 0; i < 200; ++i)
    old += "INFO tick\n";
  EXPECT_TRUE(agy_log_diagnostics(old, default_compiled_failure_patterns()).empty());
}

TEST(terminal_diagnostics, file_tail_starts_at_a_line_boundary) {
  test::temp_dir dir;
  std::string text;
  for (int i = 0; i < 1000; ++i)
    text += "line " + std::to_string(i) + "\n";
  auto path = dir.write("agy-cli.log", text);
  auto tail = read_file_tail(path, 100);
  ASSERT_TRUE(tail);
  EXPECT_LE(tail->size(), 100u);
  EXPECT_EQ(tail->substr(0, 5), "line ");
  EXPECT_EQ(tail->substr(tail->size() - 9), "line 999\n");
  EXPECT_EQ(*read_file_tail(path, 1 << 20), text);
  EXPECT_TRUE(read_file_tail(dir.path() / "missing", 10).error().is_not_found());
}

} // namespace
} // namespace ad::runtime
