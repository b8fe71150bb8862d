// The real claude (Claude Code 2.1.332) as the first worker candidate of
// `agent-dispatch run`, against the mock Messages API, with the simulator as
// every other target: what the dispatcher decides for claude's success and
// for each way it fails. While the simulator can take over, the dispatcher
// gives claude CLAUDE_CODE_MAX_RETRIES=no_progress.cli_max_retries (1 here).
#include <cctype>
#include <filesystem>

#include "tests/contract/run/run_checks.hpp"

namespace ad::contract {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string written = "hello.txt"; // what the scripts' Write creates

dispatch_case claude_case(std::string script, std::vector<std::string> env_options = {}) {
  dispatch_case c;
  c.which = cli::claude;
  c.script = std::move(script);
  c.env_options = std::move(env_options);
  c.files = {written};
  return c;
}

// claude's project folder name for a working directory: every byte that is
// not a letter or digit becomes '-' (short paths only; tests use /tmp).
std::string project_folder(const fs::path& cwd) {
  std::string out = cwd.string();
  for (char& ch : out)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '-';
  return out;
}

TEST(claude_run, a_tool_call_writes_the_plan_file_and_the_review_archives_the_task) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(claude_case("success_write"));
  ASSERT_TRUE(finished(r));
  auto loc = expect_real_success(cli::claude, r);
  EXPECT_EQ(file_text(r.ws / written), "hello from mock\n");
  // The session id the dispatcher passed; claude's transcript under HOME.
  std::string id = text_of(loc, "session_id");
  ASSERT_FALSE(id.empty()) << loc.dump(1);
  fs::path transcript = text_of(loc, "native_session_path");
  EXPECT_EQ(transcript, r.home / ".claude" / "projects" / project_folder(fs::canonical(r.ws)) /
                            (id + ".jsonl"))
      << loc.dump(1);
  EXPECT_TRUE(fs::is_regular_file(transcript)) << transcript;
  EXPECT_TRUE(contains(r.kept_file(r.worker_attempts()[0], "stream.log"),
                       "\"session_id\":\"" + id + "\""));
  EXPECT_EQ(counted(r), 2u) << r.describe();
  expect_model(r, "claude-opus-4-8");
}

TEST(claude_run, a_429_recovered_inside_the_run_is_a_success_without_failover) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(claude_case("rate_limit_429_then_write"));
  ASSERT_TRUE(finished(r));
  expect_real_success(cli::claude, r);
  EXPECT_EQ(file_text(r.ws / written), "hello from mock\n");
  EXPECT_TRUE(contains(r.kept_file(r.worker_attempts()[0], "stream.log"), "\"api_retry\""))
      << "claude did not retry the 429 itself";
  EXPECT_EQ(counted(r), 3u) << r.describe();
}

TEST(claude_run, a_429_that_exhausts_the_retries_is_provider_quota_and_fails_over) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(claude_case("rate_limit_429"));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::claude, r, {"provider-quota", "", "429"});
  // One try and the one retry the dispatcher allowed.
  EXPECT_EQ(counted(r), 2u) << r.describe();
}

TEST(claude_run, a_subscriber_limit_is_provider_quota_with_its_reset_and_waits_for_it) {
  AD_REQUIRE_CLIS();
  int64_t reset = epoch_now() + 3600;
  auto limit = script_json(cli::claude, "rate_limit_429_unified_oauth")["then"];
  for (const char* h : {"anthropic-ratelimit-unified-reset", "anthropic-ratelimit-unified-5h-reset"})
    limit["headers"][h] = std::to_string(reset);
  json script = {{"responses",
                  {limit,
                   {{"kind", "write_file"},
                    {"text", "I'll create the file."},
                    {"path", written},
                    {"content", "hello from mock\n"}}}},
                 {"then", {{"kind", "text"}, {"text", "Done: wrote hello.txt"}}}};
  auto c = claude_case("", {"--oauth"});
  c.script_doc = script;
  c.simulator_candidate = false;
  c.timeouts = {{"reset_wait_max_s", 1}};
  auto r = run_dispatch(c);
  ASSERT_TRUE(finished(r));
  ASSERT_EQ(worker_targets(r), (std::vector<std::string>{"claude-real", "claude-real"}))
      << r.describe();
  auto first = r.worker_attempts()[0];
  EXPECT_EQ(text_of(first, "failure_class"), "provider-quota") << r.describe();
  auto loc = r.locator(first);
  expect_real_locator(cli::claude, loc);
  EXPECT_EQ(text_of(loc, "failure_class"), "provider-quota") << loc.dump(1);
  // rate_limit_event's resetsAt, to the second.
  EXPECT_EQ(text_of(loc, "quota_reset_at"), iso(reset)) << loc.dump(1);
  EXPECT_TRUE(contains(r.kept_file(first, "stream.log"), "\"resetsAt\":" + std::to_string(reset)));
  EXPECT_TRUE(moves(r).empty()) << r.describe();
  auto waits = r.of("supervisor_wait");
  ASSERT_EQ(waits.size(), 1u) << r.describe();
  EXPECT_EQ(text_of(waits[0], "target"), "claude-real");
  EXPECT_TRUE(contains(text_of(waits[0], "reason"), "(capped; reset at " + iso(reset) + ")"))
      << waits[0].dump();
  auto second = r.worker_attempts()[1];
  EXPECT_EQ(text_of(second, "status"), "succeeded") << r.describe();
  EXPECT_EQ(file_text(r.ws / written), "hello from mock\n");
  expect_archived_by_the_review(r);
}

TEST(claude_run, a_prompt_too_long_is_context_limit_and_fails_over) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(claude_case("prompt_too_long"));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::claude, r, {"context-limit", "", "Prompt is too long"});
}

TEST(claude_run, a_missing_model_is_model_unavailable_and_fails_over_instead_of_retrying) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(claude_case("model_not_found_404"));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::claude, r, {"model-unavailable", "", "issue with the selected model"});
  // The streaming request and its non-streaming fallback, once.
  EXPECT_EQ(counted(r), 2u) << "the missing model was asked for again\n" << r.describe();
}

TEST(claude_run, an_overloaded_server_is_model_unavailable_and_fails_over) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(claude_case("overloaded_529"));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::claude, r, {"model-unavailable", "", "Overloaded"});
}

TEST(claude_run, a_cut_stream_is_provider_stream_disconnect_and_fails_over) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(claude_case("stream_cut"));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::claude, r,
                             {"provider-stream-disconnect", "", "Connection to the API was lost"});
}

TEST(claude_run, a_refused_connection_is_provider_connection_and_handed_over) {
  AD_REQUIRE_CLIS();
  auto c = claude_case("");
  c.listening = false;
  auto r = run_dispatch(c);
  ASSERT_TRUE(finished(r));
  // provider-connection is not a failover class (docs/policy.md): the worker
  // is promoted along the chain, to the simulator.
  expect_handed_to_simulator(cli::claude, r,
                             {"provider-connection", "", "Connection refused", "promotion"});
}

} // namespace
} // namespace ad::contract
