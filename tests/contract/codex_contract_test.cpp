// The real codex (codex-cli 0.171.0) against the mock Responses API,
// compared with the captures in tests/fixtures/realcli/codex.
#include "tests/contract/contract_checks.hpp"
#include "tests/contract/usage_checks.hpp"

namespace ad::contract {
namespace {

scenario codex(std::string script, std::vector<std::string> env_options = {}) {
  scenario s;
  s.which = cli::codex;
  s.script = std::move(script);
  s.prompt =
      "Create the file REALCLI_CODEX_OK.txt in the workspace containing the line "
      "'hello from mock', then reply with one sentence.";
  s.env_options = std::move(env_options);
  return s;
}

bool saw_retry(const scenario_run& r, const std::string& about) {
  for (const auto& e : json_lines(r.out))
    if (e.value("type", "") == "error" &&
        e.value("message", "").rfind("Reconnecting... 1/", 0) == 0 &&
        e.value("message", "").find(about) != std::string::npos)
      return true;
  return false;
}

TEST(codex_contract, success_writes_the_file_through_exec_command) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(codex("success"));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::codex, "success", r);
  EXPECT_EQ(file_text(r.ws / "REALCLI_CODEX_OK.txt"), "hello from mock\n");
  EXPECT_EQ(r.requests.size(), 2u);
  // Two answers of 1,200 input / 40 output tokens; codex reports no cost.
  expect_usage_as_served(cli::codex, r);
  EXPECT_EQ(served(r).input_tokens, 2400);
  EXPECT_FALSE(read_usage(cli::codex, r).cost_usd);
}

TEST(codex_contract, rate_limit_429_then_ok_recovers_in_the_run) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(codex("rate_limit_429_then_ok"));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::codex, "rate_limit_429_then_ok", r);
  EXPECT_EQ(r.outcome.exit_code, 0);
  EXPECT_EQ(file_text(r.ws / "REALCLI_CODEX_OK.txt"), "hello from mock\n");
  EXPECT_TRUE(saw_retry(r, "429 Too Many Requests")) << r.out;
  EXPECT_EQ(r.requests.size(), 3u);
  // The 429 told no usage: the two answers are the run's.
  expect_usage_as_served(cli::codex, r);
}

TEST(codex_contract, cached_input_and_reasoning_are_read_as_served) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(codex("usage_cached"));
  ASSERT_TRUE(ran(r));
  EXPECT_EQ(r.outcome.exit_code, 0) << r.err;
  // codex's input_tokens hold the cached and cache-written input too.
  nlohmann::json completed;
  for (const auto& e : json_lines(r.out))
    if (e.value("type", "") == "turn.completed") completed = e["usage"];
  EXPECT_EQ(completed.value("input_tokens", -1), 2400) << completed.dump();
  EXPECT_EQ(completed.value("cached_input_tokens", -1), 600) << completed.dump();
  EXPECT_EQ(completed.value("cache_write_input_tokens", -1), 200) << completed.dump();
  EXPECT_EQ(completed.value("reasoning_output_tokens", -1), 16) << completed.dump();
  expect_usage_as_served(cli::codex, r);
  EXPECT_EQ(read_usage(cli::codex, r).input_tokens, 1600);
}

TEST(codex_contract, a_turn_cut_after_an_answer_keeps_its_usage_from_the_rollout) {
  AD_REQUIRE_CLIS();
  // One answered request, then every request cut; one reconnect.
  auto r = run_scenario(codex("write_then_cut", {"--retries", "1"}));
  ASSERT_TRUE(ran(r));
  EXPECT_EQ(r.outcome.exit_code, 1) << r.err;
  EXPECT_EQ(file_text(r.ws / "REALCLI_CODEX_OK.txt"), "hello from mock\n");
  runtime::usage_reader stream(runtime::usage_format::codex);
  for (const auto& e : json_lines(r.out)) stream.on_event(e);
  EXPECT_FALSE(stream.closed()) << "a failed turn prints no usage";
  ASSERT_TRUE(codex_rollout(r)) << "no rollout under " << r.home;
  expect_usage_as_served(cli::codex, r);
  EXPECT_EQ(read_usage(cli::codex, r).output_tokens, 40);
}

TEST(codex_contract, model_not_found_404_fails_the_turn) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(codex("model_not_found_404"));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::codex, "model_not_found_404", r);
  EXPECT_EQ(r.requests.size(), 1u);
}

TEST(codex_contract, stream_cut_is_retried_then_fails) {
  AD_REQUIRE_CLIS();
  // stream_max_retries 1 instead of 5: one reconnect, two requests.
  auto r = run_scenario(codex("stream_cut", {"--retries", "1"}));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::codex, "stream_cut", r);
  EXPECT_EQ(r.requests.size(), 2u);
}

TEST(codex_contract, stream_cut_then_ok_recovers_in_the_run) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(codex("stream_cut_then_ok"));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::codex, "stream_cut_then_ok", r);
  EXPECT_EQ(file_text(r.ws / "REALCLI_CODEX_OK.txt"), "hello from mock\n");
}

TEST(codex_contract, dropped_connection_is_retried_per_request_and_per_stream) {
  AD_REQUIRE_CLIS();
  // request_max_retries 1 and stream_max_retries 1: 2 x 2 requests.
  auto r = run_scenario(codex("dropped_before_response", {"--retries", "1"}));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::codex, "dropped_before_response", r);
  EXPECT_EQ(r.requests.size(), 4u);
}

TEST(codex_contract, context_overflow_in_stream_fails_the_turn) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(codex("context_in_stream"));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::codex, "context_in_stream", r);
}

TEST(codex_contract, usage_limit_names_the_reset_time) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(codex("usage_limit_429"));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::codex, "usage_limit_429", r);
}

} // namespace
} // namespace ad::contract
