#include "runtime/agents/adapter.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

using ::testing::ElementsAre;

constexpr const char* uuid = "5d3f3c1e-6b7a-4c8e-9f10-2a3b4c5d6e7f";

launch_spec base(adapter_kind kind) {
  launch_spec s;
  s.kind = kind;
  s.model = "m-1";
  s.effort = "high";
  s.workspace = "/work/repo";
  s.attempt_dir = "/state/runs/20261129T130000Z__auth__p2__worker__a01";
  s.prompt = "Read /work/repo/agent-task/g/auth/PLAN.md and complete the task.";
  s.session_id = uuid;
  s.role = "worker";
  s.task = "auth";
  s.plan_path = "/work/repo/agent-task/g/auth/PLAN.md";
  s.review_path = "/work/repo/agent-task/g/auth/REVIEW.md";
  return s;
}

TEST(adapter_argv, codex_matches_spec) {
  auto argv = build_argv(base(adapter_kind::codex));
  ASSERT_TRUE(argv) << argv.error().to_string();
  EXPECT_THAT(*argv, ElementsAre("codex", "exec", "--json", "-C", "/work/repo", "-m", "m-1", "-c",
                                 "model_reasoning_effort=\"high\"",
                                 "--dangerously-bypass-approvals-and-sandbox",
                                 "Read /work/repo/agent-task/g/auth/PLAN.md and complete the task."));
}

TEST(adapter_argv, codex_and_claude_default_effort_is_xhigh) {
  auto spec = base(adapter_kind::codex);
  spec.effort.clear();
  EXPECT_EQ((*build_argv(spec))[8], "model_reasoning_effort=\"xhigh\"");
  spec.kind = adapter_kind::claude;
  EXPECT_EQ((*build_argv(spec))[10], "xhigh");
}

TEST(adapter_argv, claude_matches_spec) {
  auto argv = build_argv(base(adapter_kind::claude));
  ASSERT_TRUE(argv) << argv.error().to_string();
  EXPECT_THAT(*argv, ElementsAre("claude", "-p", "--output-format", "stream-json", "--verbose",
                                 "--session-id", uuid, "--model", "m-1", "--effort", "high",
                                 "--dangerously-skip-permissions",
                                 "Read /work/repo/agent-task/g/auth/PLAN.md and complete the task."));
}

TEST(adapter_argv, agy_puts_prompt_right_after_print) {
  auto argv = build_argv(base(adapter_kind::agy));
  ASSERT_TRUE(argv) << argv.error().to_string();
  EXPECT_THAT(*argv,
              ElementsAre("agy", "--print",
                          "Read /work/repo/agent-task/g/auth/PLAN.md and complete the task.",
                          "--print-timeout", "8h", "--model", "m-1",
                          "--dangerously-skip-permissions", "--log-file",
                          "/state/runs/20261129T130000Z__auth__p2__worker__a01/agy-cli.log"));
}

TEST(adapter_argv, public_pi_names_its_session_file_in_the_attempt_session_dir) {
  // The public pi (0.73) has neither --approve nor --session-id.
  auto argv = build_argv(base(adapter_kind::pi));
  ASSERT_TRUE(argv) << argv.error().to_string();
  EXPECT_THAT(*argv,
              ElementsAre("pi", "-p", "--mode", "json", "--provider", "iop", "--model", "m-1",
                          "--thinking", "high", "--session-dir",
                          "/state/runs/20261129T130000Z__auth__p2__worker__a01/pi-sessions",
                          "Read /work/repo/agent-task/g/auth/PLAN.md and complete the task."));
  EXPECT_FALSE(pi_takes_session_id(base(adapter_kind::pi)));
}

TEST(adapter_argv, a_pi_that_accepts_approve_and_session_id_gets_them) {
  auto spec = base(adapter_kind::pi);
  spec.caps = {true, "0.9.0-iop", true, true};
  auto argv = build_argv(spec);
  ASSERT_TRUE(argv) << argv.error().to_string();
  EXPECT_THAT(*argv,
              ElementsAre("pi", "-p", "--mode", "json", "--approve", "--provider", "iop",
                          "--model", "m-1", "--thinking", "high", "--session-id", uuid,
                          "--session-dir",
                          "/state/runs/20261129T130000Z__auth__p2__worker__a01/pi-sessions",
                          "Read /work/repo/agent-task/g/auth/PLAN.md and complete the task."));
  EXPECT_TRUE(pi_takes_session_id(spec));
}

TEST(adapter_argv, pi_provider_and_thinking_come_from_the_target) {
  auto spec = base(adapter_kind::pi);
  spec.provider = "anthropic";
  spec.effort = "low";
  auto argv = build_argv(spec);
  ASSERT_TRUE(argv) << argv.error().to_string();
  EXPECT_THAT(*argv, ::testing::IsSupersetOf({"anthropic", "low"}));
  EXPECT_THAT(*argv, ::testing::Not(::testing::Contains("iop")));
}

TEST(adapter_argv, pi_resume_names_the_session_file_and_its_folder) {
  auto spec = base(adapter_kind::pi);
  spec.native_session_file = "/state/runs/old/pi-sessions/2026-11-29T12-00-00_abc.jsonl";
  auto argv = build_argv(spec);
  ASSERT_TRUE(argv) << argv.error().to_string();
  EXPECT_THAT(*argv,
              ElementsAre("pi", "-p", "--mode", "json", "--provider", "iop", "--model", "m-1",
                          "--thinking", "high", "--session",
                          "/state/runs/old/pi-sessions/2026-11-29T12-00-00_abc.jsonl",
                          "--session-dir", "/state/runs/old/pi-sessions",
                          "Read /work/repo/agent-task/g/auth/PLAN.md and complete the task."));
  spec.caps = {true, "0.9.0-iop", true, true};
  argv = build_argv(spec);
  ASSERT_TRUE(argv);
  EXPECT_THAT(*argv, ::testing::Contains("--approve"));
  EXPECT_THAT(*argv, ::testing::Not(::testing::Contains("--session-id")));
}

TEST(adapter_argv, executable_override_replaces_only_argv0) {
  for (auto kind : {adapter_kind::codex, adapter_kind::claude, adapter_kind::agy,
                    adapter_kind::pi}) {
    auto spec = base(kind);
    auto plain = build_argv(spec);
    spec.executable = "/build/tools/agent-sim";
    auto over = build_argv(spec);
    ASSERT_TRUE(plain && over);
    EXPECT_EQ((*over)[0], "/build/tools/agent-sim");
    EXPECT_EQ(std::vector<std::string>(over->begin() + 1, over->end()),
              std::vector<std::string>(plain->begin() + 1, plain->end()))
      << to_string(kind);
  }
}

TEST(adapter_argv, command_template_substitutes_every_placeholder_per_element) {
  auto spec = base(adapter_kind::command);
  spec.command_template = {"my-agent",     "--model={model}", "{workspace}", "{session_id}",
                           "{attempt_dir}", "{role}/{task}",   "{plan}",      "{review}",
                           "--",            "{prompt}"};
  auto argv = build_argv(spec);
  ASSERT_TRUE(argv) << argv.error().to_string();
  EXPECT_THAT(*argv,
              ElementsAre("my-agent", "--model=m-1", "/work/repo", uuid,
                          "/state/runs/20261129T130000Z__auth__p2__worker__a01", "worker/auth",
                          "/work/repo/agent-task/g/auth/PLAN.md",
                          "/work/repo/agent-task/g/auth/REVIEW.md", "--",
                          "Read /work/repo/agent-task/g/auth/PLAN.md and complete the task."));
}

TEST(adapter_argv, command_values_are_not_rescanned_or_split) {
  auto spec = base(adapter_kind::command);
  spec.prompt = "say {workspace}; rm -rf / $(echo hi) 'q'";
  spec.command_template = {"sim", "{prompt}", "{not a placeholder}", "{\"json\":1}"};
  auto argv = build_argv(spec);
  ASSERT_TRUE(argv) << argv.error().to_string();
  EXPECT_THAT(*argv, ElementsAre("sim", "say {workspace}; rm -rf / $(echo hi) 'q'",
                                 "{not a placeholder}", "{\"json\":1}"));
}

TEST(adapter_argv, command_override_and_errors) {
  auto spec = base(adapter_kind::command);
  spec.command_template = {"agent", "{prompt}"};
  spec.executable = "/bin/sim";
  EXPECT_EQ((*build_argv(spec))[0], "/bin/sim");

  spec.command_template = {"agent", "--x={modle}"};
  auto bad = build_argv(spec);
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().is_invalid_argument());
  EXPECT_NE(bad.error().message().find("{modle}"), std::string::npos);

  spec.command_template.clear();
  EXPECT_TRUE(build_argv(spec).error().is_invalid_argument());
}

TEST(adapter_argv, missing_fields_are_named) {
  auto spec = base(adapter_kind::codex);
  spec.model.clear();
  auto r = build_argv(spec);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("model"), std::string::npos);

  spec = base(adapter_kind::claude);
  spec.session_id = "not-a-uuid";
  r = build_argv(spec);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("UUID"), std::string::npos);

  spec = base(adapter_kind::codex);
  spec.effort = "high\" --evil";
  EXPECT_FALSE(build_argv(spec));

  spec = base(adapter_kind::pi);
  spec.caps.pi_session_id = true;
  spec.session_id.clear();
  EXPECT_FALSE(build_argv(spec)); // a pi that takes --session-id needs one
  spec.native_session_file = "/s/x.jsonl"; // resuming needs no new id
  EXPECT_TRUE(build_argv(spec));
}

TEST(adapter_kind_names, round_trip) {
  for (auto kind : {adapter_kind::codex, adapter_kind::claude, adapter_kind::agy,
                    adapter_kind::pi, adapter_kind::command})
    EXPECT_EQ(*parse_adapter_kind(to_string(kind)), kind);
  EXPECT_TRUE(parse_adapter_kind("gemini").error().is_invalid_argument());
  EXPECT_TRUE(is_uuid(uuid));
  EXPECT_FALSE(is_uuid("5d3f3c1e-6b7a-4c8e-9f10-2a3b4c5d6e7g"));
}

} // namespace
} // namespace ad::runtime
