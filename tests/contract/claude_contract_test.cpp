// The real claude (Claude Code 2.1.332) against the mock Messages API,
// compared with the captures in tests/fixtures/realcli/claude.
#include "runtime/policy/usage_policy.hpp"
#include "tests/contract/contract_checks.hpp"
#include "tests/contract/usage_checks.hpp"

namespace ad::contract {
namespace {

scenario claude(std::string script, std::vector<std::string> env_options = {}) {
  scenario s;
  s.which = cli::claude;
  s.script = std::move(script);
  s.prompt =
      "Work in this folder. Create or update the file named in the task: hello.txt / notes.md.";
  s.env_options = std::move(env_options);
  return s;
}

// claude-opus-4-8's list prices, per million tokens, which claude's own
// total_cost_usd follows.
const runtime::token_prices opus{5, 25, 0.5, 6.25};

std::vector<bool> streamed(const scenario_run& r) {
  std::vector<bool> out;
  for (const auto& j : r.requests) out.push_back(j.value("stream", false));
  return out;
}

TEST(claude_contract, success_write_writes_the_file) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(claude("success_write"));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::claude, "success_write", r);
  EXPECT_EQ(file_text(r.ws / "hello.txt"), "hello from mock\n");
  EXPECT_EQ(counted_requests(r), 2u);
  // The result's usage and claude's own cost of it.
  expect_usage_as_served(cli::claude, r);
  auto cost = read_usage(cli::claude, r).cost_usd;
  ASSERT_TRUE(cost);
  EXPECT_NEAR(*cost, *runtime::cost_from_prices(served(r), opus), 1e-9);
}

TEST(claude_contract, rate_limit_429_then_ok_recovers_in_the_run) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(claude("rate_limit_429_then_ok"));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::claude, "rate_limit_429_then_ok", r);
  // 321 / 12 for the one answer; the 429 told nothing.
  expect_usage_as_served(cli::claude, r);
  EXPECT_EQ(served(r).output_tokens, 12);
}

TEST(claude_contract, a_run_cut_after_an_answer_keeps_the_answers_usage) {
  AD_REQUIRE_CLIS();
  // One answered request, then cut streams and a cut fallback; one retry.
  auto r = run_scenario(claude("write_then_cut", {"--retries", "1"}));
  ASSERT_TRUE(ran(r));
  EXPECT_EQ(r.outcome.exit_code, 1) << r.err;
  EXPECT_EQ(file_text(r.ws / "hello.txt"), "hello from mock\n");
  // The answer's usage, cache reads and writes included; the cut streams
  // told nothing.
  expect_usage_as_served(cli::claude, r);
  EXPECT_EQ(served(r).cache_write_tokens, 20);
  EXPECT_EQ(read_usage(cli::claude, r).input_tokens, 321);
}

TEST(claude_contract, rate_limit_429_then_write_retries_and_writes_the_file) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(claude("rate_limit_429_then_write"));
  ASSERT_TRUE(ran(r));
  EXPECT_EQ(r.outcome.exit_code, 0) << r.err;
  EXPECT_EQ(file_text(r.ws / "hello.txt"), "hello from mock\n");
  // A recovered run is the success_write capture with claude's own
  // api_retry event after init.
  auto want = capture_shape(cli::claude, "success_write");
  want.types.insert(want.types.begin() + 1, "system/api_retry");
  want.key["retry_statuses"] = nlohmann::json::array({429});
  auto got = shape_of(cli::claude, r.out, r.outcome.exit_code);
  EXPECT_EQ(joined(got.types), joined(want.types));
  EXPECT_EQ(got.key.dump(1), want.key.dump(1));
  EXPECT_EQ(counted_requests(r), 3u);
}

TEST(claude_contract, model_not_found_404_ends_with_an_api_error) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(claude("model_not_found_404"));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::claude, "model_not_found_404", r);
  // The streaming request, then the non-streaming fallback.
  EXPECT_EQ(streamed(r), (std::vector<bool>{true, false}));
}

TEST(claude_contract, stream_cut_is_retried_then_falls_back_and_fails) {
  AD_REQUIRE_CLIS();
  // CLAUDE_CODE_MAX_RETRIES=1 instead of 10 (three minutes of backoff).
  auto r = run_scenario(claude("stream_cut", {"--retries", "1"}));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::claude, "stream_cut", r);
  EXPECT_EQ(streamed(r), (std::vector<bool>{true, true, false}));
}

TEST(claude_contract, sse_error_event_falls_back_to_a_whole_message) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(claude("stream_sse_error_fallback_ok"));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::claude, "stream_sse_error_fallback_ok", r);
  EXPECT_EQ(streamed(r), (std::vector<bool>{true, false}));
}

TEST(claude_contract, subscriber_usage_limit_names_the_reset_time) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(claude("rate_limit_429_unified_oauth", {"--oauth"}));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::claude, "rate_limit_429_unified_oauth", r);
}

} // namespace
} // namespace ad::contract
