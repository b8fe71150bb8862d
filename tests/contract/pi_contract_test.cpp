// The real pi (pi-coding-agent 0.73.1) against the mock Chat Completions
// API, compared with the captures in tests/fixtures/realcli/pi.
#include <filesystem>

#include "tests/contract/contract_checks.hpp"

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
