#include "tools/agent-sim/invocation.hpp"

#include <gtest/gtest.h>

namespace ad::agent_sim {
namespace {

TEST(invocation, codex_exec_shape) {
  auto inv = parse_invocation(persona::codex, {"exec", "--json", "-C", "/ws", "-m", "gpt-5", "-c",
                                               "model_reasoning_effort=\"high\"",
                                               "--dangerously-bypass-approvals-and-sandbox", "Read /p and go."});
  ASSERT_TRUE(inv.is_ok()) << inv.error().to_string();
  EXPECT_EQ(inv->workspace, "/ws");
  EXPECT_EQ(inv->model, "gpt-5");
  EXPECT_EQ(inv->effort, "high");
  EXPECT_EQ(inv->prompt, "Read /p and go.");
}

TEST(invocation, codex_config_does_not_swallow_the_prompt) {
  auto inv = parse_invocation(persona::codex, {"exec", "-c", "model_reasoning_effort=\"low\"", "the prompt"});
  ASSERT_TRUE(inv.is_ok()) << inv.error().to_string();
  EXPECT_EQ(inv->effort, "low");
  EXPECT_EQ(inv->prompt, "the prompt");
}

TEST(invocation, claude_shape) {
  auto inv = parse_invocation(persona::claude, {"-p", "--output-format", "stream-json", "--verbose",
                                                "--session-id", "u-1", "--model", "opus", "--effort", "xhigh",
                                                "--dangerously-skip-permissions", "Do it."});
  ASSERT_TRUE(inv.is_ok()) << inv.error().to_string();
  EXPECT_EQ(inv->session_id, "u-1");
  EXPECT_EQ(inv->model, "opus");
  EXPECT_EQ(inv->effort, "xhigh");
  EXPECT_EQ(inv->prompt, "Do it.");
}

TEST(invocation, agy_prompt_follows_print) {
  auto inv = parse_invocation(persona::agy, {"--print", "Do it.", "--print-timeout", "8h", "--model", "g",
                                             "--dangerously-skip-permissions", "--log-file", "/a/agy-cli.log"});
  ASSERT_TRUE(inv.is_ok()) << inv.error().to_string();
  EXPECT_EQ(inv->prompt, "Do it.");
  EXPECT_EQ(inv->log_file, "/a/agy-cli.log");
  EXPECT_EQ(inv->model, "g");
}

TEST(invocation, pi_new_and_resumed_sessions) {
  auto fresh = parse_invocation(persona::pi, {"-p", "--mode", "json", "--approve", "--provider", "iop", "--model",
                                              "q", "--thinking", "high", "--session-id", "s-1", "--session-dir",
                                              "/a/pi-sessions", "Do it."});
  ASSERT_TRUE(fresh.is_ok()) << fresh.error().to_string();
  EXPECT_EQ(fresh->session_id, "s-1");
  EXPECT_EQ(fresh->session_dir, "/a/pi-sessions");
  EXPECT_EQ(fresh->prompt, "Do it.");
  auto resumed = parse_invocation(persona::pi, {"-p", "--mode", "json", "--model", "q", "--session", "/a/s.jsonl",
                                                "--session-dir", "/a", "Continue."});
  ASSERT_TRUE(resumed.is_ok());
  EXPECT_EQ(resumed->session_file, "/a/s.jsonl");
  EXPECT_TRUE(resumed->session_id.empty());
  EXPECT_EQ(resumed->prompt, "Continue.");
}

TEST(invocation, unknown_options_are_ignored_and_a_missing_prompt_is_an_error) {
  auto inv = parse_invocation(persona::claude, {"--some-new-flag", "-p", "Do it."});
  ASSERT_TRUE(inv.is_ok()) << inv.error().to_string();
  EXPECT_EQ(inv->prompt, "Do it.");
  EXPECT_FALSE(parse_invocation(persona::codex, {"exec", "--json"}).is_ok());
  auto cmd = parse_invocation(persona::command, {"--task", "a/01_x", "--role", "review"});
  ASSERT_TRUE(cmd.is_ok());
  EXPECT_EQ(cmd->task, "a/01_x");
  EXPECT_EQ(cmd->role, "review");
}

TEST(invocation, persona_names) {
  EXPECT_EQ(persona_from("pi"), persona::pi);
  EXPECT_EQ(persona_from("command"), persona::command);
  EXPECT_FALSE(persona_from("gemini").has_value());
}

} // namespace
} // namespace ad::agent_sim
