// The classification of real CLI runs: every capture in tests/fixtures/realcli
// (what codex 0.171.0, Claude Code 2.1.332 and pi 0.73.1 printed against a
// mock provider) fed through an attempt's output and classified, and the
// verdict compared with tests/fixtures/realcli/expected.json.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "runtime/agents/attempt_output.hpp"
#include "runtime/agents/cli_outcome.hpp"
#include "runtime/agents/failure_classifier.hpp"
#include "runtime/agents/progress_watch.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "tests/support/cli_shapes.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

const fs::path captures = test::source_dir() / "tests/fixtures/realcli";

// exit_code.txt: "1" or "timeout(SIGTERM->-15)" on its first line.
agent_exit_status exit_of(const fs::path& dir) {
  agent_exit_status exit;
  auto lines = test::file_lines(dir / "exit_code.txt");
  std::string first = lines.empty() ? "0" : lines.front();
  if (first.rfind("timeout", 0) == 0) {
    exit.ended = agent_exit_status::how::signaled;
    exit.signal = 15;
  } else {
    exit.code = std::stoi(first);
  }
  return exit;
}

std::optional<fs::path> first_file_under(const fs::path& dir, std::string_view suffix) {
  std::error_code ec;
  if (!fs::exists(dir, ec))
    return std::nullopt;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().string().ends_with(suffix))
      return e.path();
  return std::nullopt;
}

struct replayed {
  failure_inputs inputs;
  failure_verdict verdict;
};

// The capture as an attempt sees it: stdout and stderr lines through an
// attempt_output, the codex rollout's final error as a file diagnostic.
replayed classify_capture(adapter_kind kind, const fs::path& dir, millis observed_at,
                          int32_t utc_offset_s) {
  attempt_output output(kind, review_guard::off);
  for (const auto& line : test::file_lines(dir / "stdout.jsonl"))
    output.feed(output_channel::out, line);
  for (const auto& line : test::file_lines(dir / "stderr.txt"))
    output.feed(output_channel::err, line);
  if (kind == adapter_kind::codex && output.outcome().end == cli_end::failed)
    if (auto rollout = first_file_under(dir / "rollout", ".jsonl"))
      if (auto text = read_file(*rollout))
        if (auto err = last_codex_rollout_error(*text))
          output.add_diagnostic({"codex:rollout", dump_json(json{{"code", err->code},
                                                                 {"message", err->message}})});
  replayed r;
  r.inputs.exit = exit_of(dir);
  r.inputs.kind = kind;
  r.inputs.outcome = output.outcome();
  r.inputs.diagnostics_newest_first = output.diagnostics().newest_first();
  r.inputs.observed_at = observed_at;
  r.inputs.utc_offset_s = utc_offset_s;
  r.verdict = classify_attempt(r.inputs, default_compiled_failure_patterns());
  return r;
}

TEST(realcli_classification, every_capture_is_judged_as_the_real_cli_meant_it) {
  auto manifest = parse_json(*read_file(captures / "expected.json"), "expected.json");
  ASSERT_TRUE(manifest) << manifest.error().to_string();
  millis observed_at = *parse_utc_iso((*manifest)["observed_at"].get<std::string>());
  int checked = 0;
  for (const auto& c : (*manifest)["cases"]) {
    std::string cli = c["cli"], scenario = c["scenario"];
    SCOPED_TRACE(cli + "/" + scenario);
    auto kind = parse_adapter_kind(cli);
    ASSERT_TRUE(kind.is_ok());
    fs::path dir = captures / cli / scenario;
    ASSERT_TRUE(fs::exists(dir / "exit_code.txt")) << dir;
    auto r = classify_capture(*kind, dir, observed_at, c.value("utc_offset_s", 0));
    EXPECT_EQ(r.verdict.failure_class, c["class"].get<std::string>())
      << "evidence: " << r.verdict.evidence << " (" << r.verdict.evidence_origin << ")";
    if (c.contains("origin")) {
      EXPECT_EQ(r.verdict.evidence_origin, c["origin"].get<std::string>());
    }
    if (c.contains("reset_at")) {
      ASSERT_TRUE(r.verdict.reset_at.has_value());
      EXPECT_EQ(format_utc_iso(*r.verdict.reset_at), c["reset_at"].get<std::string>());
    } else if (c.contains("reset_after_ms")) {
      ASSERT_TRUE(r.verdict.reset_at.has_value());
      EXPECT_EQ(*r.verdict.reset_at - observed_at, c["reset_after_ms"].get<int64_t>());
    }
    if (c["class"].get<std::string>().empty()) {
      EXPECT_TRUE(r.verdict.evidence.empty()) << r.verdict.evidence;
    }
    ++checked;
  }
  EXPECT_GE(checked, 50);
}

TEST(realcli_classification, a_recovered_retry_is_no_failure_but_is_counted) {
  auto r = classify_capture(adapter_kind::codex, captures / "codex/rate_limit_429_then_ok", 0, 0);
  EXPECT_FALSE(r.verdict.failed());
  EXPECT_EQ(r.inputs.outcome.end, cli_end::succeeded);
  EXPECT_EQ(r.inputs.outcome.recovered_errors, 1);
  auto c = classify_capture(adapter_kind::claude, captures / "claude/rate_limit_429_then_ok", 0, 0);
  EXPECT_FALSE(c.verdict.failed());
  EXPECT_EQ(c.inputs.outcome.recovered_errors, 1);
}

TEST(realcli_classification, pi_exits_0_but_its_failed_final_turn_is_a_failure) {
  auto r = classify_capture(adapter_kind::pi, captures / "pi/model_not_found_404", 0, 0);
  EXPECT_EQ(r.inputs.exit.code, 0);
  EXPECT_EQ(r.inputs.outcome.end, cli_end::failed);
  EXPECT_EQ(r.inputs.outcome.failure.code, "http 404");
  EXPECT_EQ(r.verdict.failure_class, "model-unavailable");
  EXPECT_NE(r.verdict.evidence.find("does not exist"), std::string::npos) << r.verdict.evidence;
}

TEST(realcli_classification, stderr_chatter_of_a_good_run_is_no_verdict) {
  // pi warns about a model it does not know and then does the work.
  attempt_output output(adapter_kind::pi, review_guard::off);
  output.feed(output_channel::err,
              "Warning: Model \"laguna-s\" not found for provider \"iop\". Using custom model id.");
  for (const auto& line : test::file_lines(captures / "pi/success_write/stdout.jsonl"))
    output.feed(output_channel::out, line);
  failure_inputs in;
  in.kind = adapter_kind::pi;
  in.outcome = output.outcome();
  in.diagnostics_newest_first = output.diagnostics().newest_first();
  EXPECT_FALSE(classify_attempt(in, default_compiled_failure_patterns()).failed());
  // The same warning with a non-zero exit and no typed end does explain it.
  failure_inputs crashed;
  crashed.kind = adapter_kind::pi;
  crashed.exit.code = 1;
  crashed.outcome.printed_events = true;
  crashed.diagnostics_newest_first = {
    {"stderr", "Warning: Model \"laguna-s\" not found for provider \"iop\"."}};
  EXPECT_EQ(classify_attempt(crashed, default_compiled_failure_patterns()).failure_class,
            "model-unavailable");
}

TEST(realcli_classification, codex_waiting_for_network_ends_as_a_connection_failure) {
  // The real timeline: the first wait at 3.8 s, the next ones at 11.7,
  // 24.8, 47.9 and 91.0 s. With a 60 s limit the attempt ends at 91.0 s.
  no_progress_settings rule{60'000, 0, false};
  attempt_output output(adapter_kind::codex, review_guard::off, rule);
  std::optional<no_progress_stop> stop;
  int64_t stopped_at = 0;
  for (const auto& line : test::file_lines(captures / "codex/refused/timeline.txt")) {
    // "  3.848 out {json}"
    auto fields = line.find_first_not_of(' ');
    auto space = line.find(' ', fields);
    double seconds = std::stod(line.substr(fields, space - fields));
    std::string channel = line.substr(space + 1, 3);
    std::string text = line.substr(space + 5);
    auto step = output.feed(channel == "out" ? output_channel::out : output_channel::err, text,
                            static_cast<int64_t>(seconds * 1000));
    if (step.no_progress && !stop) {
      stop = step.no_progress;
      stopped_at = static_cast<int64_t>(seconds * 1000);
    }
  }
  ASSERT_TRUE(stop.has_value());
  EXPECT_EQ(stopped_at, 90'978);
  EXPECT_EQ(stop->failure_class, "provider-connection");
  EXPECT_EQ(stop->origin, "codex:network-wait");
  failure_inputs in;
  in.kind = adapter_kind::codex;
  in.exit.ended = agent_exit_status::how::signaled;
  in.exit.signal = 15;
  in.stop = dispatcher_stop::no_progress;
  in.no_progress = *stop;
  in.outcome = output.outcome();
  auto v = classify_attempt(in, default_compiled_failure_patterns());
  EXPECT_EQ(v.failure_class, "provider-connection");
  EXPECT_EQ(v.failure_source, "dispatcher-no-progress");
  EXPECT_NE(v.evidence.find("waiting for network"), std::string::npos) << v.evidence;
}

TEST(realcli_classification, claude_retrying_is_ended_only_when_another_candidate_can_take_over) {
  // claude's ten api_retry lines over three minutes of connection refusals.
  auto events = test::file_lines(captures / "claude/connection_refused/stdout.jsonl");
  for (bool failover : {false, true}) {
    SCOPED_TRACE(failover ? "with a failover candidate" : "alone");
    attempt_output output(adapter_kind::claude, review_guard::off,
                          no_progress_settings{0, 30'000, failover});
    std::optional<no_progress_stop> stop;
    int64_t at = 0;
    for (const auto& line : events) {
      auto step = output.feed(output_channel::out, line, at);
      if (step.no_progress && !stop)
        stop = step.no_progress;
      at += 10'000; // one retry every 10 s
    }
    if (!failover) {
      EXPECT_FALSE(stop.has_value());
      continue;
    }
    ASSERT_TRUE(stop.has_value());
    EXPECT_EQ(stop->failure_class, "provider-connection");
    EXPECT_EQ(stop->origin, "claude:api_retry");
  }
}

TEST(realcli_classification, a_claude_rate_limit_retry_stop_is_a_quota_failure) {
  attempt_output output(adapter_kind::claude, review_guard::off,
                        no_progress_settings{0, 5'000, true});
  std::optional<no_progress_stop> stop;
  int64_t at = 0;
  for (const auto& line : test::file_lines(captures / "claude/rate_limit_429/stdout.jsonl")) {
    if (auto step = output.feed(output_channel::out, line, at); step.no_progress && !stop)
      stop = step.no_progress;
    at += 3'000;
  }
  ASSERT_TRUE(stop.has_value());
  EXPECT_EQ(stop->failure_class, "provider-quota");
}

TEST(realcli_classification, launch_refusals_name_the_fix) {
  auto claude = detect_launch_refusal(
    adapter_kind::claude,
    "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons");
  ASSERT_TRUE(claude.has_value());
  EXPECT_NE(claude->fix.find("IS_SANDBOX"), std::string::npos);
  auto pi = detect_launch_refusal(adapter_kind::pi, "Error: Unknown options: --approve, --session-id");
  ASSERT_TRUE(pi.has_value());
  EXPECT_NE(pi->fix.find("agent-dispatch doctor"), std::string::npos);
  EXPECT_FALSE(detect_launch_refusal(adapter_kind::pi, "Warning: Model \"x\" not found").has_value());
}

TEST(realcli_classification, codex_rollout_errors_are_typed) {
  auto text = read_file(*first_file_under(captures / "codex/overloaded_503_plain/rollout", ".jsonl"));
  ASSERT_TRUE(text);
  auto err = last_codex_rollout_error(*text);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->code, "http_connection_failed 503");
  EXPECT_EQ(meaning_of_code(adapter_kind::codex, err->code).failure_class, "model-unavailable");
  auto none = read_file(*first_file_under(captures / "codex/success/rollout", ".jsonl"));
  EXPECT_FALSE(last_codex_rollout_error(*none).has_value());
}

} // namespace
} // namespace ad::runtime
