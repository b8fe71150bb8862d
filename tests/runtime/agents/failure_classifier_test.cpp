#include "runtime/agents/failure_classifier.hpp"

#include <csignal>
#include <gtest/gtest.h>

#include "runtime/agents/attempt_output.hpp"
#include "runtime/agents/reset_time.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/numbers.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

const std::filesystem::path fixtures = test::source_dir() / "tests/fixtures/agents/failures";

// Replays a stream.log fixture the way an attempt sees its output.
failure_verdict replay(const json& c) {
  auto kind = parse_adapter_kind(c["cli"].get<std::string>());
  EXPECT_TRUE(kind);
  std::string name = c["name"];
  auto text = read_file(fixtures / (name + ".stream.log"));
  EXPECT_TRUE(text) << text.error().to_string();
  attempt_output output(*kind, c["role"] == "review" ? review_guard::codex_review
                                                     : review_guard::off);
  size_t pos = 0;
  while (pos < text->size()) {
    size_t nl = text->find('\n', pos);
    std::string_view line = std::string_view(*text).substr(pos, nl - pos);
    pos = nl == std::string::npos ? text->size() : nl + 1;
    output_channel channel = line.starts_with("[stderr] ") ? output_channel::err
                                                           : output_channel::out;
    line.remove_prefix(9);
    output.feed(channel, line);
  }
  if (auto log = read_file(fixtures / (name + ".agy-cli.log")))
    output.add_agy_cli_log(*log, default_compiled_failure_patterns());
  failure_inputs in;
  int signal = c["signal"];
  if (signal != 0) {
    in.exit.ended = agent_exit_status::how::signaled;
    in.exit.signal = signal;
  } else {
    in.exit.code = c["exit_code"];
  }
  in.kind = *kind;
  in.outcome = output.outcome();
  in.review_control_tool = output.review_violation();
  in.diagnostics_newest_first = output.diagnostics().newest_first();
  in.observed_at = *parse_utc_iso(c["observed_at"].get<std::string>());
  return classify_attempt(in, default_compiled_failure_patterns());
}

TEST(failure_classifier, fixture_streams_of_every_cli_classify_as_expected) {
  auto manifest = parse_json(*read_file(fixtures / "cases.json"), "cases.json");
  ASSERT_TRUE(manifest);
  int checked = 0;
  for (const auto& c : (*manifest)["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    auto v = replay(c);
    EXPECT_EQ(v.failure_class, c["expected_class"].get<std::string>());
    if (c.contains("expected_origin")) {
      EXPECT_EQ(v.evidence_origin, c["expected_origin"].get<std::string>());
    }
    if (c.contains("evidence_contains")) {
      EXPECT_NE(v.evidence.find(c["evidence_contains"].get<std::string>()), std::string::npos)
        << v.evidence;
    }
    if (c.contains("expected_reset_at")) {
      ASSERT_TRUE(v.reset_at.has_value());
      EXPECT_EQ(format_utc_iso(*v.reset_at), c["expected_reset_at"].get<std::string>());
    } else {
      EXPECT_FALSE(v.reset_at.has_value()) << format_utc_iso(*v.reset_at);
    }
    if (!v.failed()) {
      EXPECT_TRUE(v.evidence.empty());
    }
    ++checked;
  }
  EXPECT_GE(checked, 30);
}

failure_inputs exited(int code, std::vector<terminal_diagnostic> newest_first = {}) {
  failure_inputs in;
  in.exit.code = code;
  in.diagnostics_newest_first = std::move(newest_first);
  return in;
}

const compiled_failure_patterns& table() { return default_compiled_failure_patterns(); }

TEST(failure_classifier, order_review_control_before_signal_before_patterns) {
  auto in = exited(0, {{"stderr", "429 Too Many Requests"}});
  in.exit.ended = agent_exit_status::how::signaled;
  in.exit.signal = SIGTERM;
  in.review_control_tool = "spawn_agent";
  auto v = classify_attempt(in, table());
  EXPECT_EQ(v.failure_class, "review-control-violation");
  EXPECT_EQ(v.failure_source, "dispatcher-control");
  EXPECT_EQ(v.evidence_origin, "dispatcher:review-control");
  EXPECT_EQ(v.termination_signal, SIGTERM);

  in.review_control_tool.reset();
  v = classify_attempt(in, table());
  EXPECT_EQ(v.failure_class, "process-terminated");
  EXPECT_EQ(v.termination_signal_name, "SIGTERM");
  EXPECT_FALSE(v.termination_signal_inferred);

  in.exit = {};
  in.exit.code = 137;
  v = classify_attempt(in, table());
  EXPECT_EQ(v.failure_class, "process-terminated");
  EXPECT_EQ(v.termination_signal_name, "SIGKILL");
  EXPECT_TRUE(v.termination_signal_inferred);

  in.exit.code = 1;
  v = classify_attempt(in, table());
  EXPECT_EQ(v.failure_class, "provider-quota");
  EXPECT_EQ(v.failure_source, "cli-terminal-diagnostic");
}

TEST(failure_classifier, dispatcher_stops_and_launch_failures) {
  auto in = exited(0);
  in.exit.ended = agent_exit_status::how::signaled;
  in.exit.signal = SIGKILL;
  in.stop = dispatcher_stop::session_stall;
  EXPECT_EQ(classify_attempt(in, table()).failure_class, "session-stall");
  in.stop = dispatcher_stop::cancelled;
  EXPECT_EQ(classify_attempt(in, table()).failure_class, "cancelled");

  auto launch = exited(0);
  launch.launch = launch_outcome::failed_to_start;
  launch.launch_error = "command not found: codex";
  auto v = classify_attempt(launch, table());
  EXPECT_EQ(v.failure_class, "launch-failure");
  EXPECT_EQ(v.failure_source, "cli-launch");
  EXPECT_EQ(v.evidence, "command not found: codex");

  // Exit 127 wins over a pattern the shell's message happens to match.
  v = classify_attempt(exited(127, {{"stderr", "sh: 1: model-runner: not found"}}), table());
  EXPECT_EQ(v.failure_class, "launch-failure");
  EXPECT_EQ(v.evidence, "sh: 1: model-runner: not found");
  EXPECT_EQ(v.evidence_origin, "stderr");
}

TEST(failure_classifier, newest_matching_line_wins_and_table_order_breaks_ties) {
  // The newest line matching any class decides, even if older lines match a
  // class earlier in the table.
  auto v = classify_attempt(exited(1, {{"stderr", "HTTP 429 Too Many Requests"},
                                       {"stderr", "context window is 200k tokens"}}),
                            table());
  EXPECT_EQ(v.failure_class, "provider-quota");
  EXPECT_EQ(v.evidence, "HTTP 429 Too Many Requests");
  // One line matching two classes: table order.
  v = classify_attempt(exited(1, {{"stderr", "rate limit: context window exceeded"}}), table());
  EXPECT_EQ(v.failure_class, "context-limit");
  // Case-insensitive.
  v = classify_attempt(exited(1, {{"stderr", "RESOURCE_EXHAUSTED"}}), table());
  EXPECT_EQ(v.failure_class, "provider-quota");
}

TEST(failure_classifier, transport_classes_are_confirmed_provider_failures) {
  auto v = classify_attempt(
    exited(1, {{"stderr", "SSE stream before done: backend watchdog fired"}}), table());
  EXPECT_EQ(v.failure_class, "provider-stream-disconnect");
  EXPECT_EQ(v.failure_source, "provider-terminal-diagnostic");
  EXPECT_TRUE(v.provider_transport_failure_confirmed);
}

TEST(failure_classifier, evidence_is_cut_at_2000_bytes) {
  std::string line = "429 " + std::string(5000, 'x');
  auto v = classify_attempt(exited(1, {{"stderr", line}}), table());
  EXPECT_EQ(v.evidence.size(), failure_evidence_limit);
  EXPECT_TRUE(v.evidence_truncated);
}

TEST(failure_classifier, generic_error_and_success) {
  auto v = classify_attempt(exited(2, {{"stderr", "segfault in tool"}}), table());
  EXPECT_EQ(v.failure_class, "generic-error");
  EXPECT_EQ(v.failure_source, "cli-exit");
  EXPECT_EQ(v.evidence, "segfault in tool");
  v = classify_attempt(exited(2), table());
  EXPECT_EQ(v.failure_class, "generic-error");
  EXPECT_TRUE(v.evidence.empty());
  v = classify_attempt(exited(0, {{"stderr", "warning: deprecated flag"}}), table());
  EXPECT_FALSE(v.failed());
}

TEST(failure_patterns, overrides_compile_and_bad_regex_is_named) {
  std::vector<failure_pattern> custom = {{"disk-full", {"no space left", "ENOSPC"}}};
  auto compiled = compile_failure_patterns(custom);
  ASSERT_TRUE(compiled);
  auto v = classify_attempt(exited(1, {{"stderr", "write failed: No Space Left on device"}}),
                            *compiled);
  EXPECT_EQ(v.failure_class, "disk-full");
  EXPECT_EQ(compiled->classes(), std::vector<std::string>{"disk-full"});

  auto bad = compile_failure_patterns({{"context-limit", {"ok", "unclosed (group"}}});
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().is_invalid_argument());
  EXPECT_NE(bad.error().message().find("unclosed (group"), std::string::npos);
  EXPECT_NE(bad.error().message().find("context-limit"), std::string::npos);
  EXPECT_FALSE(compile_failure_patterns({{"", {"x"}}}));
}

// run and replay classify with the same table: an empty one in the policy
// is the default table, never a table that matches nothing.
TEST(failure_patterns, an_empty_policy_table_is_the_default_table) {
  auto empty = policy_failure_patterns({});
  ASSERT_TRUE(empty.is_ok());
  EXPECT_EQ(empty->classes(), default_compiled_failure_patterns().classes());
  ASSERT_TRUE(empty->match("Error: context window exceeded").has_value());
  auto own = policy_failure_patterns({{"mine", {"boom"}}});
  ASSERT_TRUE(own.is_ok());
  EXPECT_EQ(own->classes(), std::vector<std::string>{"mine"});
  EXPECT_FALSE(policy_failure_patterns({{"bad", {"("}}}).is_ok());
}

TEST(failure_patterns, default_table_has_the_five_classes_in_order) {
  auto defaults = default_failure_patterns();
  ASSERT_EQ(defaults.size(), 5u);
  EXPECT_EQ(defaults[0].failure_class, "context-limit");
  EXPECT_EQ(defaults[1].failure_class, "provider-quota");
  EXPECT_EQ(defaults[2].failure_class, "model-unavailable");
  EXPECT_EQ(defaults[3].failure_class, "provider-connection");
  EXPECT_EQ(defaults[4].failure_class, "provider-stream-disconnect");
  EXPECT_EQ(table().classes().size(), 5u);
  // Word boundaries hold: 4290 is not 429.
  EXPECT_FALSE(table().match("took 4290 ms"));
  EXPECT_TRUE(table().matches_class("provider-quota", "status 429"));
  EXPECT_FALSE(table().matches_class("context-limit", "status 429"));
}

TEST(reset_time, understands_the_provider_forms) {
  millis now = *parse_utc_iso("2026-11-29T13:00:00Z");
  auto iso = [&](std::string_view text) {
    auto t = extract_reset_at(text, now);
    return t ? format_utc_iso(*t) : std::string("none");
  };
  EXPECT_EQ(iso(R"({"rate_limit_info":{"status":"rejected","resetsAt":1795000000}})"),
            "2026-11-18T11:06:40.000Z");
  EXPECT_EQ(iso(R"({"resets_at": 1795000000123})"), "2026-11-18T11:06:40.123Z");
  EXPECT_EQ(iso("Claude AI usage limit reached|1795000000"), "2026-11-18T11:06:40.000Z");
  EXPECT_EQ(iso("rate limit exceeded; resets at 2026-11-29T15:30:00Z"),
            "2026-11-29T15:30:00.000Z");
  EXPECT_EQ(iso("quota exhausted, try again at 2026-11-29T16:00:00+01:00"),
            "2026-11-29T15:00:00.000Z");
  EXPECT_EQ(iso("Retry-After: 30"), "2026-11-29T13:00:30.000Z");
  EXPECT_EQ(iso("rate limited; retry after 90s"), "2026-11-29T13:01:30.000Z");
  EXPECT_EQ(iso("retry after 2 minutes"), "2026-11-29T13:02:00.000Z");
  EXPECT_EQ(iso("retry after 1500ms"), "2026-11-29T13:00:01.500Z");
  EXPECT_EQ(iso("Quota exceeded. Please retry in 23.5s."), "2026-11-29T13:00:23.500Z");
  EXPECT_EQ(iso(R"({"retryDelay": "41s"})"), "2026-11-29T13:00:41.000Z");
  EXPECT_EQ(iso("usage limit. Try again in 1h 30m."), "2026-11-29T14:30:00.000Z");
  EXPECT_EQ(iso("try again in 2 days, 3 hours and 5 minutes"), "2026-12-01T16:05:00.000Z");
  EXPECT_EQ(iso("HTTP 429 Too Many Requests"), "none");
  EXPECT_EQ(iso("try again in a moment"), "none");
  EXPECT_EQ(iso(std::string(100000, '\xff')), "none");
  // Long runs of white space (agent output) match in linear time, without
  // recursion.
  EXPECT_EQ(iso("try again in" + std::string(16000, ' ') + "5 minutes"), "2026-11-29T13:05:00.000Z");
  EXPECT_EQ(iso("retry after" + std::string(16000, '\t')), "none");
}

// Numbers past int64_t milliseconds were cast as doubles, undefined
// behaviour (UBSan: float-cast-overflow): an absolute time that far out is no
// reset time, and a wait that long is the longest wait (100 years).
TEST(reset_time, numbers_beyond_any_time_are_no_time_or_the_longest_wait) {
  millis now = *parse_utc_iso("2026-11-29T13:00:00Z");
  const std::string huge = "1" + std::string(300, '0');
  EXPECT_EQ(extract_reset_at(R"({"resetsAt": )" + huge + "}", now), std::nullopt);
  EXPECT_EQ(extract_reset_at(R"({"resets_at": 9223372036854775808})", now), std::nullopt);
  EXPECT_EQ(extract_reset_at("Retry-After: " + huge, now), now + longest_wait_ms);
  EXPECT_EQ(extract_reset_at("try again in " + huge + " days and 5 minutes", now),
            now + longest_wait_ms);
}

TEST(reset_time, reads_clock_times_in_the_agents_time_zone) {
  millis now = *parse_utc_iso("2026-12-01T17:20:00Z");
  auto iso = [&](std::string_view text, int32_t offset = 0) {
    auto t = extract_reset_at(text, now, offset);
    return t ? format_utc_iso(*t) : std::string("none");
  };
  // codex: the next 6:33 PM local time; a time already past is tomorrow's.
  EXPECT_EQ(iso("You've hit your usage limit. ... or try again at 6:33 PM."),
            "2026-12-01T18:33:00.000Z");
  EXPECT_EQ(iso("try again at 5:10 PM."), "2026-12-02T17:10:00.000Z");
  // Seoul (+09:00): 02:20 local now, so 3:33 AM is 18:33 UTC today.
  EXPECT_EQ(iso("try again at 3:33 AM.", 9 * 3600), "2026-12-01T18:33:00.000Z");
  EXPECT_EQ(iso("try again at Dec 4th, 2026 6:33 PM."), "2026-12-04T18:33:00.000Z");
  EXPECT_EQ(iso("try again at Dec 4th, 2026 6:33 PM.", -5 * 3600), "2026-12-04T23:33:00.000Z");
  EXPECT_EQ(iso("try again at 12:05 AM"), "2026-12-02T00:05:00.000Z");
  // claude: a named UTC wins over the agent's zone; "7pm" without minutes.
  EXPECT_EQ(iso("You've hit your 5-hour limit · resets 6:06pm (UTC)", 9 * 3600),
            "2026-12-01T18:06:00.000Z");
  EXPECT_EQ(iso("You've hit your limit · resets 7pm (Asia/Seoul)", 9 * 3600),
            "2026-12-02T10:00:00.000Z");
  // Not clock times.
  EXPECT_EQ(iso("resets 5 tokens"), "none");
  EXPECT_EQ(iso("try again at 13:75"), "none");
  EXPECT_EQ(iso("try again at 13 PM"), "none");
}

TEST(failure_classifier, quota_reset_is_taken_from_older_diagnostics_when_evidence_has_none) {
  auto in = exited(1, {{"claude:result", R"({"type":"result","is_error":true,"result":"rate limited"})"},
                       {"claude:rate_limit_event",
                        R"({"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1795000000}})"}});
  auto v = classify_attempt(in, table());
  EXPECT_EQ(v.failure_class, "provider-quota");
  EXPECT_EQ(v.evidence_origin, "claude:result");
  ASSERT_TRUE(v.reset_at);
  EXPECT_EQ(*v.reset_at, 1795000000000);
}

} // namespace
} // namespace ad::runtime
