#include "runtime/agents/attempt_locator.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

attempt_locator sample() {
  attempt_locator l;
  l.identity = make_attempt_identity("auth/api v2", 3, "worker", 7);
  l.task = "auth/api v2";
  l.plan_number = 3;
  l.role = "worker";
  l.attempt = 7;
  l.workspace = "/work/repo";
  l.workspace_id = "ab12";
  l.dispatcher_pid = 4242;
  l.dispatcher_start_token = "987654";
  l.cli = "claude";
  l.model = "claude-opus-4-1";
  l.effort = "xhigh";
  l.process_marker = attempt_process_marker("ab12", l.identity, "n0nce");
  l.plan_path = "/work/repo/agent-task/g/auth/PLAN.md";
  l.session_id = "5d3f3c1e-6b7a-4c8e-9f10-2a3b4c5d6e7f";
  l.native_session_path = "/home/u/.claude/projects/-work-repo/5d3f.jsonl";
  l.native_session_mtime_ns = 1795000000123456789;
  l.stream_log = "/s/runs/x/stream.log";
  l.normalized_output_log = "/s/runs/x/normalized-output.log";
  l.heartbeat_log = "/s/runs/x/heartbeat.log";
  l.work_log = "/work/repo/agent-task/g/WORK_LOG.md";
  l.status = attempt_status::failed;
  l.started_at = 1795000000123;
  l.updated_at = 1795000030123;
  l.finished_at = 1795000060000;
  l.agent_pid = 5151;
  l.agent_start_token = "123456";
  l.exit_code = 1;
  l.failure_class = "provider-quota";
  l.failure_source = "cli-terminal-diagnostic";
  l.failure_evidence = "HTTP 429";
  l.failure_evidence_origin = "stderr";
  l.termination_signal = "SIGTERM";
  l.termination_signal_inferred = true;
  l.termination_initiator = "dispatcher";
  l.quota_reset_at = 1795003600000;
  l.silence = silence_inspection{1795000180123, 180000, "[stdout] tail"};
  l.selector_evidence = {{"work_unit_id", "wu-1"}, {"transition", "failover"}};
  l.stage_budget = 2;
  l.retry_handoff_id = "h-1";
  return l;
}

TEST(attempt_locator, round_trips_through_json) {
  auto l = sample();
  json j = locator_to_json(l);
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["started_at"], "2026-11-18T11:06:40.123Z");
  EXPECT_TRUE(j["review_path"].is_null());
  auto back = locator_from_json(parse_json(dump_json(j), "locator").value());
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(locator_to_json(*back), j);
  EXPECT_EQ(back->identity, "auth__api__v2__p3__worker__a07");
  EXPECT_EQ(back->quota_reset_at, l.quota_reset_at);
  EXPECT_EQ(back->silence->stream_tail, "[stdout] tail");
  EXPECT_EQ(back->native_session_mtime_ns, l.native_session_mtime_ns);
}

TEST(attempt_locator, unknown_keys_survive_and_minimal_records_load) {
  json j = {{"identity", "t__p1__review__a01"}, {"task", "t"}, {"role", "review"},
            {"attempt", 1}, {"cli", "codex"}, {"status", "running"},
            {"started_at", "2026-11-29T13:00:00Z"}, {"pi_session_phase", "tool-running"}};
  auto l = locator_from_json(j);
  ASSERT_TRUE(l) << l.error().to_string();
  EXPECT_EQ(l->status, attempt_status::running);
  EXPECT_FALSE(l->agent_pid);
  EXPECT_EQ(locator_to_json(*l)["pi_session_phase"], "tool-running");
}

TEST(attempt_locator, bad_fields_are_named) {
  json j = locator_to_json(sample());
  j["agent_pid"] = "5151";
  auto l = locator_from_json(j);
  ASSERT_FALSE(l);
  EXPECT_TRUE(l.error().is_invalid_argument());
  EXPECT_NE(l.error().message().find("agent_pid"), std::string::npos);

  j = locator_to_json(sample());
  j["status"] = "exploded";
  EXPECT_NE(locator_from_json(j).error().message().find("status"), std::string::npos);
  j = locator_to_json(sample());
  j.erase("identity");
  EXPECT_NE(locator_from_json(j).error().message().find("identity"), std::string::npos);
  j = locator_to_json(sample());
  j["started_at"] = "yesterday";
  EXPECT_NE(locator_from_json(j).error().message().find("started_at"), std::string::npos);
  j = locator_to_json(sample());
  j["usage"] = {{"input_tokens", -3}};
  EXPECT_NE(locator_from_json(j).error().message().find("usage"), std::string::npos);
  EXPECT_FALSE(locator_from_json(json::array()));
}

TEST(attempt_identity, follows_the_naming_rules) {
  EXPECT_EQ(safe_task_name("auth~102_api"), "auth__102_api");
  EXPECT_EQ(safe_task_name("  weird//name!! "), "weird__name");
  EXPECT_EQ(safe_task_name("v1.2-fix"), "v1.2-fix");
  EXPECT_EQ(safe_task_name("_lead_"), "lead");
  EXPECT_EQ(safe_task_name("///"), "task");
  EXPECT_EQ(safe_task_name(""), "task");
  EXPECT_EQ(safe_task_name("한글 task"), "task");
  EXPECT_EQ(make_attempt_identity("auth", 2, "worker", 1), "auth__p2__worker__a01");
  EXPECT_EQ(make_attempt_identity("auth", 0, "selfcheck", 123), "auth__p0__selfcheck__a123");
  EXPECT_EQ(attempt_run_folder_name(1795000000123, "auth__p2__worker__a01"),
            "20261118T110640Z__auth__p2__worker__a01");
  EXPECT_EQ(attempt_process_marker("ws1", "auth__p2__worker__a01", "n"),
            "wws1__auth__p2__worker__a01__n");
}

} // namespace
} // namespace ad::runtime
