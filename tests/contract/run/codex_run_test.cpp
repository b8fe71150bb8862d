// The real codex (codex-cli 0.171.0) as the first worker candidate of
// `agent-dispatch run`, against the mock Responses API, with the simulator
// as every other target: what the dispatcher decides for codex's success
// and for each way it fails.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "tests/contract/run/run_checks.hpp"

namespace ad::contract {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string codex_written = "REALCLI_CODEX_OK.txt"; // what the scripts' exec_command writes

dispatch_case codex_case(std::string script, std::vector<std::string> env_options = {}) {
  dispatch_case c;
  c.which = cli::codex;
  c.script = std::move(script);
  c.env_options = std::move(env_options);
  c.files = {codex_written};
  return c;
}

TEST(codex_run, a_tool_call_writes_the_plan_file_and_the_review_archives_the_task) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(codex_case("success"));
  ASSERT_TRUE(finished(r));
  auto loc = expect_real_success(cli::codex, r);
  EXPECT_EQ(file_text(r.ws / codex_written), "hello from mock\n");
  // The session is codex's thread id; its rollout lies under CODEX_HOME.
  std::string id = text_of(loc, "session_id");
  ASSERT_FALSE(id.empty()) << loc.dump(1);
  fs::path rollout = text_of(loc, "native_session_path");
  EXPECT_TRUE(fs::is_regular_file(rollout)) << loc.dump(1);
  EXPECT_EQ(rollout.string().rfind((r.home / ".codex" / "sessions").string() + "/", 0), 0u)
      << rollout;
  EXPECT_TRUE(rollout.filename().string().starts_with("rollout-")) << rollout;
  EXPECT_TRUE(rollout.filename().string().ends_with("-" + id + ".jsonl")) << rollout;
  EXPECT_TRUE(contains(r.kept_file(r.worker_attempts()[0], "stream.log"),
                       "\"thread_id\":\"" + id + "\""));
  // The tool call, then the final answer.
  EXPECT_EQ(r.requests.size(), 2u) << r.describe();
  expect_model(r, "mock-model");
}

TEST(codex_run, a_429_recovered_inside_the_run_is_a_success_without_failover) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(codex_case("rate_limit_429_then_ok"));
  ASSERT_TRUE(finished(r));
  expect_real_success(cli::codex, r);
  EXPECT_EQ(file_text(r.ws / codex_written), "hello from mock\n");
  EXPECT_TRUE(contains(r.kept_file(r.worker_attempts()[0], "stream.log"), "Reconnecting... 1/"))
      << "codex did not retry the 429 itself";
  EXPECT_EQ(r.requests.size(), 3u) << r.describe();
}

TEST(codex_run, a_429_that_exhausts_the_retries_is_provider_quota_and_fails_over) {
  AD_REQUIRE_CLIS();
  // stream_max_retries 1: one reconnect after the first 429.
  auto r = run_dispatch(codex_case("rate_limit_429", {"--retries", "1"}));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::codex, r,
                             {"provider-quota", "", "exceeded retry limit, last status: 429"});
  EXPECT_EQ(r.requests.size(), 2u) << r.describe();
}

// codex's "h:mm AM" of a reset at `at`, in a zone `utc_offset_s` east of UTC.
std::string codex_reset_clock(int64_t at, int64_t utc_offset_s) {
  int64_t local = ((at + utc_offset_s) % 86400 + 86400) % 86400;
  int hour = static_cast<int>(local / 3600), minute = static_cast<int>(local / 60 % 60);
  char clock[16];
  std::snprintf(clock, sizeof clock, "%d:%02d %s", hour % 12 == 0 ? 12 : hour % 12, minute,
                hour < 12 ? "AM" : "PM");
  return clock;
}

// codex's "Dec 3rd, 2026" of a reset at `at`, in a zone `utc_offset_s` east of UTC.
std::string codex_reset_date(int64_t at, int64_t utc_offset_s) {
  std::time_t local = static_cast<std::time_t>(at + utc_offset_s);
  std::tm t{};
  gmtime_r(&local, &t);
  static const char* const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  int d = t.tm_mday;
  const char* suffix = (d % 100 >= 11 && d % 100 <= 13) ? "th"
                       : d % 10 == 1                    ? "st"
                       : d % 10 == 2                    ? "nd"
                       : d % 10 == 3                    ? "rd"
                                                        : "th";
  return std::string(months[t.tm_mon]) + " " + std::to_string(d) + suffix + ", " +
         std::to_string(t.tm_year + 1900);
}

// The ChatGPT-plan usage limit: codex says "try again at <h:mm PM>" in its
// own time zone; the dispatcher reads that in the agent's zone (the target's
// TZ, else the system's). With no other candidate the task waits for the
// reset (capped by reset_wait_max_s), then runs codex again, which succeeds.
void usage_limit_waits_for_the_reset(const std::string& tz, int64_t utc_offset_s) {
  int64_t now = epoch_now();
  int64_t resets_at = (now + 5400) / 60 * 60 + 30; // the text shows the minute: hh:mm:00
  int64_t shown = resets_at / 60 * 60;
  auto script = script_json(cli::codex, "usage_limit_429");
  json limit = script["then"];
  limit["body"]["error"]["resets_at"] = resets_at;
  limit["body"]["error"]["resets_in_seconds"] = resets_at - now;
  script = {{"count", "all"},
            {"responses",
             {limit,
              {{"kind", "shell"},
               {"command", "printf 'hello from mock\\n' > " + codex_written + " && cat " + codex_written}}}},
            {"then", {{"kind", "text"}, {"text", "Done: the file was written."}}}};
  auto c = codex_case("");
  c.script_doc = script;
  c.simulator_candidate = false;
  if (!tz.empty()) c.target_env = {{"TZ", tz}};
  c.timeouts = {{"reset_wait_max_s", 1}};
  auto r = run_dispatch(c);
  ASSERT_TRUE(finished(r));
  ASSERT_EQ(worker_targets(r), (std::vector<std::string>{"codex-real", "codex-real"}))
      << r.describe();
  auto first = r.worker_attempts()[0];
  EXPECT_EQ(text_of(first, "failure_class"), "provider-quota") << r.describe();
  auto loc = r.locator(first);
  expect_real_locator(cli::codex, loc);
  EXPECT_EQ(text_of(loc, "failure_class"), "provider-quota") << loc.dump(1);
  // The text in the agent's zone: h:mm AM/PM of the reset there, after its
  // date ("Dec 3rd, 2026 1:09 AM") when the reset falls on another local day
  // than the failure. The test's clock and codex's may straddle midnight, so
  // either form is taken, but each only with the right clock and date.
  std::string evidence = text_of(loc, "failure_evidence");
  std::string same_day = "try again at " + codex_reset_clock(shown, utc_offset_s);
  std::string other_day = "try again at " + codex_reset_date(shown, utc_offset_s) + " " +
                          codex_reset_clock(shown, utc_offset_s);
  EXPECT_TRUE(contains(evidence, same_day + ".") || contains(evidence, other_day + "."))
      << "expected \"" << same_day << "\" or \"" << other_day << "\"\n"
      << loc.dump(1);
  EXPECT_EQ(text_of(loc, "quota_reset_at"), iso(shown)) << loc.dump(1);
  // No failover candidate: a wait for the reset, capped at 1 s, naming it.
  EXPECT_TRUE(moves(r).empty()) << r.describe();
  auto waits = r.of("supervisor_wait");
  ASSERT_EQ(waits.size(), 1u) << r.describe();
  EXPECT_EQ(text_of(waits[0], "target"), "codex-real");
  EXPECT_TRUE(contains(text_of(waits[0], "reason"), "(capped; reset at " + iso(shown) + ")"))
      << waits[0].dump();
  auto until = runtime::parse_utc_iso(text_of(waits[0], "until"));
  auto at = runtime::parse_utc_iso(text_of(waits[0], "time"));
  ASSERT_TRUE(until.is_ok() && at.is_ok()) << waits[0].dump();
  EXPECT_NEAR(static_cast<double>(*until - *at), 1000.0, 250.0) << waits[0].dump();
  // After the wait codex runs again and succeeds.
  auto second = r.worker_attempts()[1];
  EXPECT_EQ(text_of(second, "status"), "succeeded") << r.describe();
  EXPECT_EQ(file_text(r.ws / codex_written), "hello from mock\n");
  expect_archived_by_the_review(r);
  EXPECT_EQ(r.requests.size(), 3u) << r.describe();
}

// The UTC offset of /etc/localtime at t, the zone of an agent without TZ.
int64_t system_offset(int64_t t) {
  std::string saved = getenv_or_empty("TZ");
  bool had = std::getenv("TZ") != nullptr;
  ::unsetenv("TZ");
  ::tzset();
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  ::localtime_r(&tt, &tm);
  if (had) ::setenv("TZ", saved.c_str(), 1);
  ::tzset();
  return tm.tm_gmtoff;
}

TEST(codex_run, a_usage_limit_is_provider_quota_with_its_reset_and_waits_for_it) {
  AD_REQUIRE_CLIS();
  usage_limit_waits_for_the_reset("", system_offset(epoch_now() + 5400));
}

TEST(codex_run, a_usage_limit_read_in_the_agents_time_zone) {
  AD_REQUIRE_CLIS();
  // India: UTC+5:30 all year, so the shown minute differs from UTC's.
  usage_limit_waits_for_the_reset("Asia/Kolkata", 5 * 3600 + 1800);
}

TEST(codex_run, a_context_overflow_is_context_limit_and_fails_over) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(codex_case("context_in_stream"));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::codex, r, {"context-limit", "", "context window"});
  EXPECT_EQ(r.requests.size(), 1u) << r.describe();
}

TEST(codex_run, a_missing_model_is_model_unavailable_and_fails_over_instead_of_retrying) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(codex_case("model_not_found_404"));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::codex, r, {"model-unavailable", "", "does not exist"});
  EXPECT_EQ(r.requests.size(), 1u) << "the missing model was asked for again\n" << r.describe();
}

TEST(codex_run, an_overloaded_server_is_model_unavailable_and_fails_over) {
  AD_REQUIRE_CLIS();
  // request_max_retries 1, stream_max_retries 1: codex asks two or four
  // times (whether its stream retry runs varies from run to run), never more.
  auto r = run_dispatch(codex_case("overloaded_503", {"--retries", "1"}));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::codex, r,
                             {"model-unavailable", "", "Selected model is at capacity"});
  EXPECT_GE(r.requests.size(), 2u) << r.describe();
  EXPECT_LE(r.requests.size(), 4u) << r.describe();
}

TEST(codex_run, a_cut_stream_is_provider_stream_disconnect_and_fails_over) {
  AD_REQUIRE_CLIS();
  auto r = run_dispatch(codex_case("stream_cut", {"--retries", "1"}));
  ASSERT_TRUE(finished(r));
  expect_handed_to_simulator(cli::codex, r,
                             {"provider-stream-disconnect", "", "stream disconnected before completion"});
  EXPECT_EQ(r.requests.size(), 2u) << r.describe();
}

TEST(codex_run, a_refused_connection_is_ended_by_the_no_progress_rule_and_handed_over) {
  AD_REQUIRE_CLIS();
  // codex waits for the network for ever; network_wait_s 3 ends it.
  auto c = codex_case("");
  c.listening = false;
  auto r = run_dispatch(c);
  ASSERT_TRUE(finished(r));
  // provider-connection is not a failover class (docs/policy.md): the worker
  // is promoted along the chain, to the simulator.
  auto loc = expect_handed_to_simulator(
      cli::codex, r,
      {"provider-connection", "dispatcher-no-progress", "waiting for network", "promotion"});
  if (loc.is_object()) {
    EXPECT_EQ(text_of(loc, "termination_initiator"), "dispatcher") << loc.dump(1);
  }
}

} // namespace
} // namespace ad::contract
