// The real codex (codex-cli 0.171.0) against the mock Responses API,
// compared with the captures in tests/fixtures/realcli/codex.
#include "tests/contract/contract_checks.hpp"

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
