// The real pi (pi-coding-agent 0.73.1) as the first worker candidate of
// `agent-dispatch run`, against the mock Chat Completions API, with the
// simulator as every other target: what the dispatcher decides for pi's
// success and for each way it fails, a long tool call that must not count
// as silence, and native resumes of pi's own session file.
//
// pi has no usage-limit form (its provider here is a plain OpenAI-style
// API: a 429 is a rate limit with "try again in 2s", covered below), so
// there is no usage-limit case for pi.
#include <filesystem>
#include <sstream>

#include "tests/contract/run/run_checks.hpp"

namespace ad::contract {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// pi's retries short: one retry 50 ms later, no retries of the openai SDK.
const std::vector<std::string> short_retries = {"--retries", "1", "--retry-delay-ms", "50",
                                                "--sdk-retries", "0"};

dispatch_case pi_case(std::string script, std::vector<std::string> files,
                      std::vector<std::string> env_options = {}) {
  dispatch_case c;
  c.which = cli::pi;
  c.script = std::move(script);
  c.env_options = std::move(env_options);
  c.files = std::move(files);
  c.lane = "local";
  return c;
}

// The messages of the n-th chat request that offered tools (the counted
// ones; pi's compaction summary offers none), as the mock received it.
json counted_messages(const dispatch_run& r, std::size_t n) {
  for (const auto& d : r.dumped_requests()) {
    if (!d.is_object() || !d.contains("body") || !d["body"].is_object()) continue;
    const json& body = d["body"];
    if (!body.contains("tools") || !body["tools"].is_array() || body["tools"].empty()) continue;
    if (n-- == 0) return body.value("messages", json::array());
  }
  return json::array();
}

TEST(pi_run, a_tool_call_writes_the_plan_file_and_the_review_archives_the_task) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(pi_case("success_write", {"notes/hello.txt"}));
  ASSERT_TRUE(finished(r));
  auto loc = expect_real_success(cli::pi, r);
  EXPECT_EQ(file_text(r.ws / "notes" / "hello.txt"), "hello\n");
  // pi names its session itself: the id of its session event, the file
  // <stamp>_<id>.jsonl in the attempt's pi-sessions folder.
  std::string id = text_of(loc, "session_id");
  ASSERT_FALSE(id.empty()) << loc.dump(1);
  fs::path session = text_of(loc, "native_session_path");
  auto attempt = r.worker_attempts()[0];
  fs::path folder = fs::path(text_of(attempt, "locator")).parent_path();
  EXPECT_EQ(session.parent_path(), folder / "pi-sessions") << loc.dump(1);
  EXPECT_TRUE(session.filename().string().ends_with("_" + id + ".jsonl")) << session;
  EXPECT_TRUE(fs::is_regular_file(r.kept_folder(attempt) / "pi-sessions" / session.filename()))
      << "the session file was not where the locator says";
  EXPECT_TRUE(contains(r.kept_file(attempt, "stream.log"), "\"id\":\"" + id + "\""));
  EXPECT_EQ(counted(r), 2u) << r.describe();
  expect_model(r, "laguna-s");
}

TEST(pi_run, a_429_recovered_inside_the_run_is_a_success_without_failover) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(pi_case("rate_limit_429_then_ok", {"b.txt"}, {"--retry-delay-ms", "100"}));
  ASSERT_TRUE(finished(r));
  expect_real_success(cli::pi, r);
  EXPECT_EQ(file_text(r.ws / "b.txt"), "b\n");
  EXPECT_TRUE(contains(r.kept_file(r.worker_attempts()[0], "stream.log"), "auto_retry_start"))
      << "pi did not retry the 429 itself";
  EXPECT_EQ(counted(r), 3u) << r.describe();
}

TEST(pi_run, a_429_that_exhausts_the_retries_is_provider_quota_and_fails_over) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(pi_case("rate_limit_429", {"b.txt"}, short_retries));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::pi, r, {"provider-quota", "", "429 Rate limit reached"});
  EXPECT_EQ(counted(r), 2u) << r.describe();
}

TEST(pi_run, a_context_overflow_resumes_the_same_native_session) {
  AD_REQUIRE_CLIS();
  auto context = script_json(cli::pi, "context_length_400");
  json script = {{"responses",
                  {context["then"],
                   {{"kind", "write_file"}, {"path", "c.txt"}, {"content", "c\n"}}}},
                 {"then", {{"kind", "text"}, {"text", "Created c.txt."}}},
                 {"uncounted", context["uncounted"]}};
  auto c = pi_case("", {"c.txt"});
  c.script_doc = script;
  c.target = {{"native_resume", true}};
  auto r = run_dispatch(c);
  ASSERT_TRUE(finished(r));
  ASSERT_EQ(worker_targets(r), (std::vector<std::string>{"pi-real", "pi-real"})) << r.describe();
  EXPECT_TRUE(moves(r).empty()) << "a native resume, not a failover\n" << r.describe();
  auto first = r.worker_attempts()[0], second = r.worker_attempts()[1];
  EXPECT_EQ(text_of(first, "failure_class"), "context-limit") << r.describe();
  auto loc1 = r.locator(first), loc2 = r.locator(second);
  expect_real_locator(cli::pi, loc1);
  expect_real_locator(cli::pi, loc2);
  EXPECT_TRUE(contains(text_of(loc1, "failure_evidence"), "maximum context length")) << loc1.dump(1);
  // The second attempt ran `pi --session <the first attempt's file>`.
  std::string session = text_of(loc1, "native_session_path");
  ASSERT_FALSE(session.empty()) << loc1.dump(1);
  EXPECT_EQ(text_of(loc2, "native_session_path"), session) << loc2.dump(1);
  EXPECT_EQ(text_of(loc2, "resumed_from_locator"), text_of(first, "locator")) << loc2.dump(1);
  EXPECT_EQ(text_of(loc2, "session_id"), text_of(loc1, "session_id")) << loc2.dump(1);
  EXPECT_EQ(text_of(second, "status"), "succeeded") << r.describe();
  EXPECT_EQ(file_text(r.ws / "c.txt"), "c\n");
  expect_archived_by_the_review(r);
  // The resumed run's request carries the first attempt's prompt (from
  // the session file, after pi's compaction summary) and the resume prompt.
  std::string first_prompt = counted_messages(r, 0).dump();
  EXPECT_TRUE(contains(first_prompt, "PLAN-local-G05.md")) << first_prompt;
  std::string resumed;
  for (std::size_t i = 1; i < counted(r); ++i) {
    auto text = counted_messages(r, i).dump();
    if (contains(text, "Continue this session")) resumed = text;
  }
  ASSERT_FALSE(resumed.empty()) << "no request carried the resume prompt\n" << r.describe();
  EXPECT_TRUE(contains(resumed, "PLAN-local-G05.md")) << resumed;
  EXPECT_TRUE(contains(resumed, "compacted into the following summary")) << resumed;
}

TEST(pi_run, a_missing_model_is_model_unavailable_and_fails_over_instead_of_retrying) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(pi_case("model_not_found_404", {"d.txt"}));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::pi, r, {"model-unavailable", "", "does not exist"});
  EXPECT_EQ(counted(r), 1u) << "the missing model was asked for again\n" << r.describe();
}

TEST(pi_run, an_overloaded_server_is_model_unavailable_and_fails_over) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(pi_case("overloaded_503", {"e.txt"}, short_retries));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::pi, r, {"model-unavailable", "", "overloaded"});
}

TEST(pi_run, a_cut_stream_is_provider_stream_disconnect_and_fails_over) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(pi_case("stream_cut", {"f.txt"}, short_retries));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::pi, r, {"provider-stream-disconnect", "", "terminated"});
}

TEST(pi_run, a_refused_connection_is_provider_connection_and_retries_pi) {
  AD_REQUIRE_CLIS();
  auto c = pi_case("", {"h.txt"}, short_retries);
  c.listening = false;
  // provider-connection is no failover class, and a failed pi is retried on
  // the same target (docs/policy.md, step 8) until the budget blocks.
  c.policy = {{"budgets",
               {{"recovery_failures", 2},
                {"selfcheck_incomplete", 10},
                {"review_no_progress", 10},
                {"reset_waits", 10}}}};
  auto r = run_dispatch(c);
  ASSERT_TRUE(finished(r));
  EXPECT_EQ(worker_targets(r), (std::vector<std::string>{"pi-real", "pi-real"})) << r.describe();
  EXPECT_TRUE(moves(r).empty()) << r.describe();
  for (const auto& a : r.worker_attempts()) {
    EXPECT_EQ(text_of(a, "failure_class"), "provider-connection") << r.describe();
    auto loc = r.locator(a);
    expect_real_locator(cli::pi, loc);
    EXPECT_TRUE(contains(text_of(loc, "failure_evidence"), "Connection error")) << loc.dump(1);
  }
  auto blocked = r.of("task_blocked");
  ASSERT_EQ(blocked.size(), 1u) << r.describe();
  EXPECT_TRUE(contains(text_of(blocked[0], "reason"), "recovery failure limit")) << blocked[0].dump();
  EXPECT_EQ(r.outcome.exit_code, 2) << r.describe();
}

TEST(pi_run, a_long_tool_call_is_no_silence) {
  AD_REQUIRE_CLIS();
  // The tool sleeps 6 s; silence is inspected after 2 s unless a tool runs.
  json script = {{"responses",
                  {{{"kind", "shell"}, {"command", "sleep 6 && printf 'slept\\n' > slow.txt"}}}},
                 {"then", {{"kind", "text"}, {"text", "The slow step finished."}}}};
  auto c = pi_case("", {"slow.txt"});
  c.script_doc = script;
  c.timeouts = {{"heartbeat_s", 1}, {"silence_inspection_s", 2}};
  auto r = run_dispatch(c);
  ASSERT_TRUE(finished(r));
  auto loc = expect_real_success(cli::pi, r);
  EXPECT_EQ(file_text(r.ws / "slow.txt"), "slept\n");
  auto heartbeat = r.kept_file(r.worker_attempts()[0], "heartbeat.log");
  EXPECT_TRUE(contains(heartbeat, "pi_phase=tool-running")) << heartbeat;
  // On a loaded machine node can take over 2 s to start pi; that silence is
  // real and may be inspected. The 6 s the tool runs must not be.
  std::istringstream lines{heartbeat};
  int inspections = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!contains(line, "[silence-inspection]")) continue;
    ++inspections;
    EXPECT_TRUE(contains(line, "(phase starting)")) << heartbeat;
  }
  if (loc.is_object()) {
    EXPECT_EQ(loc.value("silence_inspections", 0), inspections) << loc.dump(1);
    EXPECT_EQ(loc["silence_inspection"].is_null(), inspections == 0) << loc.dump(1);
  }
}

TEST(pi_run, a_stalled_session_is_resumed_from_the_real_session_file) {
  AD_REQUIRE_CLIS();
  // pi writes one.txt, then its next request gets no answer: the stall
  // limit (8 s) stops it and the native resume continues its session file,
  // in which pi finds the write it made and writes two.txt.
  json script = {{"responses",
                  {{{"kind", "write_file"}, {"path", "notes/one.txt"}, {"content", "one\n"}},
                   {{"kind", "text"}, {"text", "late"}, {"delay_ms", 20000}},
                   {{"kind", "write_file"}, {"path", "notes/two.txt"}, {"content", "two\n"}}}},
                 {"then", {{"kind", "text"}, {"text", "Wrote both files."}}}};
  auto c = pi_case("", {"notes/one.txt", "notes/two.txt"});
  c.script_doc = script;
  c.target = {{"native_resume", true}};
  // The limit is well above the 2-3 s node takes to start pi on a loaded
  // 2-core machine: a resumed pi that is still starting is no stall.
  c.timeouts = {{"heartbeat_s", 1}, {"stall_limit_s", 8}};
  auto r = run_dispatch(c);
  ASSERT_TRUE(finished(r));
  ASSERT_EQ(worker_targets(r), (std::vector<std::string>{"pi-real", "pi-real"})) << r.describe();
  EXPECT_TRUE(moves(r).empty()) << r.describe();
  auto first = r.worker_attempts()[0], second = r.worker_attempts()[1];
  EXPECT_EQ(text_of(first, "failure_class"), "session-stall") << r.describe();
  auto loc1 = r.locator(first), loc2 = r.locator(second);
  expect_real_locator(cli::pi, loc1);
  EXPECT_EQ(text_of(loc1, "failure_source"), "dispatcher-stall") << loc1.dump(1);
  std::string session = text_of(loc1, "native_session_path");
  ASSERT_FALSE(session.empty()) << loc1.dump(1);
  EXPECT_EQ(text_of(loc2, "native_session_path"), session) << loc2.dump(1);
  EXPECT_EQ(text_of(loc2, "resumed_from_locator"), text_of(first, "locator")) << loc2.dump(1);
  EXPECT_EQ(text_of(second, "status"), "succeeded") << r.describe();
  EXPECT_EQ(file_text(r.ws / "notes" / "one.txt"), "one\n");
  EXPECT_EQ(file_text(r.ws / "notes" / "two.txt"), "two\n");
  expect_archived_by_the_review(r);
  // The resumed request carries the first attempt's write and its result.
  std::string resumed = counted_messages(r, 2).dump();
  EXPECT_TRUE(contains(resumed, "notes/one.txt")) << resumed;
  EXPECT_TRUE(contains(resumed, "Continue this session")) << resumed;
}

} // namespace
} // namespace ad::contract
