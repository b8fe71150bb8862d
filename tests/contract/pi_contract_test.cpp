// The real pi (pi-coding-agent 0.73.1) against the mock Chat Completions
// API, compared with the captures in tests/fixtures/realcli/pi.
#include <filesystem>

#include "runtime/policy/usage_policy.hpp"
#include "tests/contract/contract_checks.hpp"
#include "tests/contract/usage_checks.hpp"

namespace ad::contract {
namespace {

scenario pi(std::string script, std::string prompt, std::vector<std::string> env_options = {}) {
  scenario s;
  s.which = cli::pi;
  s.script = std::move(script);
  s.prompt = std::move(prompt);
  s.env_options = std::move(env_options);
  return s;
}

bool saw_auto_retry(const scenario_run& r) {
  for (const auto& e : json_lines(r.out))
    if (e.value("type", "") == "auto_retry_start") return true;
  return false;
}

TEST(pi_contract, success_write_writes_the_file) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(pi("success_write", "Create notes/hello.txt containing one line: hello."));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::pi, "success_write", r);
  EXPECT_EQ(file_text(r.ws / "notes" / "hello.txt"), "hello\n");
  // Two answers of 1,234 / 56; pi knows no price for the model: no cost.
  expect_usage_as_served(cli::pi, r);
  EXPECT_EQ(served(r).input_tokens, 2 * 1234);
  EXPECT_FALSE(read_usage(cli::pi, r).cost_usd);
}

TEST(pi_contract, a_priced_model_reports_its_cost_of_what_was_served) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(pi("success_priced", "Create notes/hello.txt containing one line: hello.",
                           {"--pi-cost", "3,15,0.3,3.75"}));
  ASSERT_TRUE(ran(r));
  EXPECT_EQ(r.outcome.exit_code, 0) << r.err;
  expect_usage_as_served(cli::pi, r);
  EXPECT_EQ(served(r).cache_read_tokens, 2 * 200);
  auto cost = read_usage(cli::pi, r).cost_usd;
  ASSERT_TRUE(cost) << r.out;
  // pi's own figure is what the same prices make of the served tokens.
  EXPECT_NEAR(*cost, *runtime::cost_from_prices(served(r), {3, 15, 0.3, 3.75}), 1e-12);
}

TEST(pi_contract, a_run_cut_after_an_answer_keeps_the_answers_usage) {
  AD_REQUIRE_CLIS();
  // One answered request, then every request cut; one retry, 50 ms later.
  auto r = run_scenario(pi("write_then_cut", "Create c.txt containing c.", {"--retries", "1", "--retry-delay-ms", "50"}));
  ASSERT_TRUE(ran(r));
  EXPECT_EQ(file_text(r.ws / "c.txt"), "c\n");
  EXPECT_NE(r.out.find(R"("stopReason":"error")"), std::string::npos) << "the run did not fail";
  expect_usage_as_served(cli::pi, r);
  EXPECT_EQ(served(r).output_tokens, 56);
}

TEST(pi_contract, rate_limit_429_then_ok_recovers_in_the_run) {
  AD_REQUIRE_CLIS();
  // retry.baseDelayMs 100 instead of 2000.
  auto r = run_scenario(
      pi("rate_limit_429_then_ok", "Create b.txt containing b.", {"--retry-delay-ms", "100"}));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::pi, "rate_limit_429_then_ok", r);
  EXPECT_EQ(r.outcome.exit_code, 0);
  EXPECT_EQ(file_text(r.ws / "b.txt"), "b\n");
  EXPECT_TRUE(saw_auto_retry(r)) << r.out;
  expect_usage_as_served(cli::pi, r);
}

TEST(pi_contract, model_not_found_404_stops_with_an_error) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(pi("model_not_found_404", "Create d.txt."));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::pi, "model_not_found_404", r);
}

TEST(pi_contract, stream_cut_is_retried_three_times) {
  AD_REQUIRE_CLIS();
  // Three retries as in the capture, 50/100/200 ms apart instead of 2/4/8 s.
  auto r = run_scenario(pi("stream_cut", "Create f.txt.", {"--retry-delay-ms", "50"}));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::pi, "stream_cut", r);
  EXPECT_EQ(r.requests.size(), 4u);
}

TEST(pi_contract, context_overflow_asks_for_a_summary_without_tools) {
  AD_REQUIRE_CLIS();
  auto r = run_scenario(pi("context_length_400", "Create c.txt."));
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::pi, "context_length_400", r);
  bool summary = false;
  for (const auto& j : r.requests) summary = summary || !j.value("tools", true);
  EXPECT_TRUE(summary) << "no request without tools (the compaction summary) reached the mock";
}

TEST(pi_contract, resumed_session_edits_the_file_it_wrote) {
  AD_REQUIRE_CLIS();
  auto first =
      run_scenario(pi("success_write", "Create notes/hello.txt containing one line: hello."));
  ASSERT_TRUE(ran(first));
  ASSERT_EQ(file_text(first.ws / "notes" / "hello.txt"), "hello\n");
  std::filesystem::path session;
  for (const auto& e : std::filesystem::directory_iterator(first.sessions)) session = e.path();
  ASSERT_FALSE(session.empty()) << "pi wrote no session file";
  auto s = pi("resume_session", "Continue this session and complete the current task.");
  s.extra_args = {"--session", session.string()};
  auto r = run_scenario(s, &first);
  ASSERT_TRUE(ran(r));
  expect_like_capture(cli::pi, "resume_session", r);
  EXPECT_EQ(file_text(r.ws / "notes" / "hello.txt"), "hello again\n");
}

} // namespace
} // namespace ad::contract
