// The usage readers on what the real CLIs printed (tests/fixtures/realcli):
// codex 0.171.0, Claude Code 2.1.332 and pi 0.73.1 against a mock that
// answered each request with known usage (codex 1,200 input / 40 output
// tokens, claude 321 input, pi 1,234 / 56). Successes, recovered errors,
// failures, running totals, missing fields, pi with and without a cost, and
// the session files of an attempt whose stream has not got it all.
#include "runtime/agents/usage_reader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "runtime/agents/attempt_output.hpp"
#include "runtime/core/files.hpp"
#include "tests/support/cli_shapes.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

const fs::path usage_captures = test::source_dir() / "tests/fixtures/realcli";

std::vector<std::string> lines_of(const fs::path& file) {
  auto lines = test::file_lines(file);
  EXPECT_FALSE(lines.empty()) << file;
  return lines;
}

std::vector<std::string> stdout_of(std::string_view cli, std::string_view scenario) {
  return lines_of(usage_captures / cli / scenario / "stdout.jsonl");
}

fs::path only_file_under(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file())
      return e.path();
  ADD_FAILURE() << "no file under " << dir;
  return {};
}

usage_reader read_all(usage_format f, const std::vector<std::string>& lines) {
  usage_reader r(f);
  for (const auto& l : lines)
    r.on_line(l);
  return r;
}

token_usage tokens(int64_t in, int64_t out, std::optional<int64_t> cache_read = 0,
                   std::optional<int64_t> cache_write = 0, std::optional<int64_t> reasoning = std::nullopt,
                   std::optional<double> cost = std::nullopt) {
  token_usage u;
  u.input_tokens = in;
  u.output_tokens = out;
  u.cache_read_tokens = cache_read;
  u.cache_write_tokens = cache_write;
  u.reasoning_tokens = reasoning;
  u.cost_usd = cost;
  return u;
}

// ---- codex ------------------------------------------------------------------

TEST(codex_usage, a_success_reports_both_requests_at_the_turns_end) {
  auto lines = stdout_of("codex", "success");
  usage_reader r(usage_format::codex);
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    r.on_line(lines[i]);
    EXPECT_TRUE(r.so_far().empty()) << "codex prints no usage before turn.completed: " << lines[i];
  }
  r.on_line(lines.back());
  EXPECT_TRUE(r.closed());
  // Two requests of 1,200 / 40; no cache, no reasoning, no cost from codex.
  EXPECT_EQ(r.so_far(), tokens(2400, 80, 0, 0, 0));
}

TEST(codex_usage, a_recovered_429_or_cut_stream_adds_nothing_for_the_failed_request) {
  for (const char* scenario : {"rate_limit_429_then_ok", "stream_cut_then_ok"}) {
    auto r = read_all(usage_format::codex, stdout_of("codex", scenario));
    EXPECT_TRUE(r.closed()) << scenario;
    EXPECT_EQ(r.so_far(), tokens(2400, 80, 0, 0, 0)) << scenario;
  }
}

TEST(codex_usage, turn_completed_is_a_running_total_that_replaces_the_last) {
  // codex's usage is the thread's total since it started: a second turn
  // reports both turns.
  usage_reader r(usage_format::codex);
  r.on_line(R"({"type":"turn.completed","usage":{"input_tokens":1200,"cached_input_tokens":0,"output_tokens":40}})");
  r.on_line(R"({"type":"turn.completed","usage":{"input_tokens":3600,"cached_input_tokens":0,"output_tokens":120}})");
  EXPECT_EQ(r.so_far().input_tokens, 3600);
  EXPECT_EQ(r.so_far().output_tokens, 120);
}

TEST(codex_usage, cached_and_cache_written_input_is_taken_out_of_input) {
  usage_reader r(usage_format::codex);
  r.on_line(R"({"type":"turn.completed","usage":{"input_tokens":1200,"cached_input_tokens":300,)"
            R"("cache_write_input_tokens":100,"output_tokens":40,"reasoning_output_tokens":25}})");
  EXPECT_EQ(r.so_far(), tokens(800, 40, 300, 100, 25));
  EXPECT_EQ(counted_tokens(r.so_far()), 1240) << "the same total as codex's own input + output";
}

TEST(codex_usage, missing_or_malformed_fields_are_left_out) {
  usage_reader r(usage_format::codex);
  r.on_line(R"({"type":"turn.completed","usage":{"input_tokens":"many","output_tokens":-4,"reasoning_output_tokens":1.5}})");
  EXPECT_TRUE(r.closed());
  EXPECT_TRUE(r.so_far().empty());
  r.on_line(R"({"type":"turn.completed","usage":{"output_tokens":40}})");
  EXPECT_EQ(r.so_far().output_tokens, 40);
  EXPECT_FALSE(r.so_far().input_tokens);
  EXPECT_FALSE(r.so_far().cache_read_tokens) << "not reported is not zero";
  r.on_line(R"({"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":300}})");
  EXPECT_EQ(r.so_far().input_tokens, 0) << "never below zero";
}

TEST(codex_usage, a_failed_turn_has_no_usage_in_the_stream_and_asks_for_the_rollout) {
  auto r = read_all(usage_format::codex, stdout_of("codex", "stream_cut"));
  EXPECT_FALSE(r.closed());
  EXPECT_TRUE(r.so_far().empty());
  EXPECT_TRUE(wants_session_usage(r, 0));
  // Every request of that run was cut: the rollout has no totals either.
  auto rollout = read_session_usage(usage_format::codex, only_file_under(usage_captures / "codex/stream_cut/rollout"), 0);
  ASSERT_TRUE(rollout.is_ok()) << rollout.error().to_string();
  EXPECT_FALSE(rollout->has_value());
  EXPECT_TRUE(settle_usage(r, 0, *rollout).empty());
}

TEST(codex_usage, the_rollouts_last_token_count_is_the_runs_total) {
  for (const char* scenario : {"success", "rate_limit_429_then_ok", "stream_cut_then_ok"}) {
    auto rollout = read_session_usage(usage_format::codex,
                                      only_file_under(usage_captures / "codex" / scenario / "rollout"), 0);
    ASSERT_TRUE(rollout.is_ok()) << rollout.error().to_string();
    ASSERT_TRUE(rollout->has_value()) << scenario;
    EXPECT_EQ(**rollout, tokens(2400, 80, 0, 0, 0)) << scenario;
  }
}

TEST(codex_usage, a_turn_that_fails_after_an_answered_request_counts_it_from_the_rollout) {
  // The success run cut after its first answered request: the stream up to
  // the second request, a failed turn, and the rollout up to its first
  // token_count.
  auto out = stdout_of("codex", "success");
  std::vector<std::string> stream(out.begin(), out.begin() + 5);
  stream.push_back(R"({"type":"error","message":"stream disconnected before completion"})");
  stream.push_back(R"({"type":"turn.failed","error":{"message":"stream disconnected before completion"}})");
  auto r = read_all(usage_format::codex, stream);
  ASSERT_TRUE(wants_session_usage(r, 0));
  session_usage_reader rollout(usage_format::codex, 0);
  bool first_total = false;
  for (const auto& l : lines_of(only_file_under(usage_captures / "codex/success/rollout"))) {
    rollout.on_line(l);
    if (rollout.found()) {
      first_total = true;
      break;
    }
  }
  ASSERT_TRUE(first_total);
  EXPECT_EQ(settle_usage(r, 0, rollout.found()), tokens(1200, 40, 0, 0, 0));
}

// ---- claude -----------------------------------------------------------------

TEST(claude_usage, per_message_figures_while_it_runs_then_the_results_totals) {
  auto lines = stdout_of("claude", "success_write");
  usage_reader r(usage_format::claude);
  size_t result_line = 0;
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(R"("type":"result")") != std::string::npos)
      result_line = i;
  ASSERT_GT(result_line, 0u);
  for (size_t i = 0; i < result_line; ++i)
    r.on_line(lines[i]);
  EXPECT_FALSE(r.closed());
  // Two messages of 321 input (the first printed as two events with one
  // id), each with the 1 output token of its start.
  EXPECT_EQ(r.so_far(), tokens(642, 2, 0, 0));
  for (size_t i = result_line; i < lines.size(); ++i)
    r.on_line(lines[i]);
  EXPECT_TRUE(r.closed());
  // The result's usage and total_cost_usd replace the per-message figures.
  EXPECT_EQ(r.so_far(), tokens(642, 52, 0, 0, 0, 0.00451));
}

TEST(claude_usage, a_recovered_429_counts_the_one_answered_request) {
  auto r = read_all(usage_format::claude, stdout_of("claude", "rate_limit_429_then_ok"));
  EXPECT_TRUE(r.closed());
  EXPECT_EQ(r.so_far(), tokens(321, 12, 0, 0, 0, 0.001905));
}

TEST(claude_usage, a_run_that_failed_mid_stream_keeps_what_the_cli_counted) {
  // Every request cut after message_start: claude counts each start.
  auto cut = read_all(usage_format::claude, stdout_of("claude", "stream_cut"));
  EXPECT_TRUE(cut.closed());
  EXPECT_EQ(cut.so_far(), tokens(3531, 11, 0, 0, 0, 0.020405));
  // An error event inside the stream: the start's tokens, and claude's cost of 0.
  auto sse = read_all(usage_format::claude, stdout_of("claude", "stream_sse_error"));
  EXPECT_EQ(sse.so_far(), tokens(321, 1, 0, 0, 0, 0.0));
}

TEST(claude_usage, a_failure_before_any_answer_reports_zero_not_nothing) {
  auto r = read_all(usage_format::claude, stdout_of("claude", "rate_limit_429"));
  EXPECT_EQ(r.so_far(), tokens(0, 0, 0, 0, 0, 0.0));
}

TEST(claude_usage, a_run_killed_before_its_result_keeps_the_per_message_figures) {
  auto lines = stdout_of("claude", "success_edit");
  lines.pop_back(); // the result
  auto r = read_all(usage_format::claude, lines);
  EXPECT_FALSE(r.closed());
  EXPECT_EQ(r.so_far(), tokens(4 * 321, 4, 0, 0));
  EXPECT_FALSE(wants_session_usage(r, 0));
}

TEST(claude_usage, missing_fields_stay_missing) {
  usage_reader r(usage_format::claude);
  r.on_line(R"({"type":"assistant","message":{"id":"m1","usage":{"input_tokens":10}}})");
  r.on_line(R"({"type":"assistant","message":{"usage":{"output_tokens":2}}})");
  r.on_line(R"({"type":"assistant","message":{"usage":{"output_tokens":3}}})");
  auto so_far = r.so_far();
  EXPECT_EQ(so_far.input_tokens, 10);
  EXPECT_EQ(so_far.output_tokens, 5) << "messages without an id are counted once each";
  EXPECT_FALSE(so_far.cache_read_tokens);
  EXPECT_FALSE(so_far.cost_usd);
  r.on_line(R"({"type":"result","subtype":"success","total_cost_usd":0.25})");
  token_usage cost_only;
  cost_only.cost_usd = 0.25;
  EXPECT_EQ(r.so_far(), cost_only);
  r.on_line(R"({"type":"result","subtype":"success","usage":{"input_tokens":7,"cache_read_input_tokens":70,)"
            R"("cache_creation_input_tokens":700,"output_tokens":9,"output_tokens_details":{"thinking_tokens":4}}})");
  EXPECT_EQ(r.so_far(), tokens(7, 9, 70, 700, 4));
}

// ---- pi -----------------------------------------------------------------------

TEST(pi_usage, each_assistant_message_end_is_one_request_added_up) {
  auto lines = stdout_of("pi", "success_write");
  usage_reader r(usage_format::pi);
  std::vector<int64_t> seen;
  for (const auto& l : lines) {
    r.on_line(l);
    if (auto in = r.so_far().input_tokens; in && (seen.empty() || seen.back() != *in))
      seen.push_back(*in);
  }
  // The usage grows request by request (turn_end and agent_end repeat the
  // messages and add nothing); pi without prices reports a cost of 0: none.
  EXPECT_EQ(seen, (std::vector<int64_t>{1234, 2468}));
  EXPECT_EQ(r.so_far(), tokens(2468, 112, 0, 0));
  EXPECT_FALSE(r.so_far().cost_usd);
  EXPECT_FALSE(r.closed());
}

TEST(pi_usage, recovered_errors_add_their_empty_messages_and_nothing_more) {
  for (const char* scenario : {"rate_limit_429_then_ok", "stream_cut_then_ok"})
    EXPECT_EQ(read_all(usage_format::pi, stdout_of("pi", scenario)).so_far(), tokens(2468, 112, 0, 0)) << scenario;
}

TEST(pi_usage, a_run_that_fails_after_a_tool_call_keeps_the_answered_request) {
  EXPECT_EQ(read_all(usage_format::pi, stdout_of("pi", "context_length_after_tool")).so_far(),
            tokens(1234, 56, 0, 0));
  EXPECT_EQ(read_all(usage_format::pi, stdout_of("pi", "stream_cut")).so_far(), tokens(0, 0, 0, 0));
}

TEST(pi_usage, a_cost_pi_reports_is_added_up) {
  // pi's own figure when models.json prices the model: the capture's
  // messages with a cost written in, as pi writes it.
  usage_reader r(usage_format::pi);
  for (const auto& l : stdout_of("pi", "success_write")) {
    auto event = parse_json(l, "line");
    ASSERT_TRUE(event.is_ok());
    if (event->value("type", "") == "message_end" && (*event)["message"].value("role", "") == "assistant")
      (*event)["message"]["usage"]["cost"] = {{"input", 0.001234}, {"output", 0.00028},
                                              {"cacheRead", 0}, {"cacheWrite", 0}, {"total", 0.001514}};
    r.on_event(*event);
  }
  ASSERT_TRUE(r.so_far().cost_usd);
  EXPECT_DOUBLE_EQ(*r.so_far().cost_usd, 2 * 0.001514);
}

TEST(pi_usage, the_session_file_counts_the_messages_since_the_attempt_started) {
  fs::path resumed = only_file_under(usage_captures / "pi/resume_session/sessions");
  // The whole file: the first run's two requests and the resumed run's two.
  auto all = read_session_usage(usage_format::pi, resumed, 0);
  ASSERT_TRUE(all.is_ok()) << all.error().to_string();
  ASSERT_TRUE(all->has_value());
  EXPECT_EQ(**all, tokens(4 * 1234, 4 * 56, 0, 0));
  // Since the resumed attempt started (its user message is stamped 17:18:35.769).
  auto since = read_session_usage(usage_format::pi, resumed, *parse_utc_iso("2026-12-01T17:18:35.700Z"));
  ASSERT_TRUE(since.is_ok());
  ASSERT_TRUE(since->has_value());
  EXPECT_EQ(**since, read_all(usage_format::pi, stdout_of("pi", "resume_session")).so_far());
  auto later = read_session_usage(usage_format::pi, resumed, *parse_utc_iso("2026-12-02T00:00:00Z"));
  ASSERT_TRUE(later.is_ok());
  EXPECT_FALSE(later->has_value());
}

TEST(pi_usage, a_stream_that_lost_lines_is_settled_from_the_session_file) {
  auto lines = stdout_of("pi", "success_write");
  // The spool kept the head and the tail: the first message_end was lost.
  std::vector<std::string> kept;
  bool dropped = false;
  for (const auto& l : lines) {
    if (!dropped && l.find(R"("type":"message_end")") != std::string::npos
        && l.find(R"("role":"assistant")") != std::string::npos) {
      dropped = true;
      continue;
    }
    kept.push_back(l);
  }
  auto r = read_all(usage_format::pi, kept);
  EXPECT_EQ(r.so_far().input_tokens, 1234);
  EXPECT_FALSE(wants_session_usage(r, 0));
  ASSERT_TRUE(wants_session_usage(r, 1));
  auto session = read_session_usage(usage_format::pi, only_file_under(usage_captures / "pi/success_write/sessions"), 0);
  ASSERT_TRUE(session.is_ok());
  EXPECT_EQ(settle_usage(r, 1, *session), tokens(2468, 112, 0, 0));
  EXPECT_EQ(settle_usage(r, 0, *session), r.so_far()) << "a whole stream is read as it is";
  EXPECT_EQ(settle_usage(r, 1, std::nullopt), r.so_far()) << "no session file: what the stream had";
}

// ---- session files ----------------------------------------------------------

TEST(session_usage, a_missing_file_is_not_found_and_an_overlong_line_is_skipped) {
  test::temp_dir tmp;
  auto missing = read_session_usage(usage_format::codex, tmp.path() / "nope.jsonl", 0);
  ASSERT_FALSE(missing.is_ok());
  EXPECT_TRUE(missing.error().is_not_found());
  std::string total =
    R"({"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":5,"output_tokens":1}}}})";
  std::string huge = R"({"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":9,"pad":")"
                     + std::string(max_session_line_bytes, 'x') + R"("}}}})";
  // The overlong line comes last: the earlier total stands.
  auto file = tmp.write("rollout.jsonl", total + "\n" + huge + "\n" + "{\"torn\":");
  auto u = read_session_usage(usage_format::codex, file, 0);
  ASSERT_TRUE(u.is_ok()) << u.error().to_string();
  ASSERT_TRUE(u->has_value());
  EXPECT_EQ((*u)->input_tokens, 5);
  EXPECT_EQ((*u)->output_tokens, 1);
}

TEST(session_usage, a_pi_message_without_its_own_time_is_dated_by_its_entry) {
  session_usage_reader r(usage_format::pi, *parse_utc_iso("2026-12-01T17:00:00Z"));
  r.on_line(R"({"type":"message","timestamp":"2026-12-01T16:59:59.000Z","message":{"role":"assistant","usage":{"input":1,"output":1}}})");
  EXPECT_FALSE(r.found());
  r.on_line(R"({"type":"message","timestamp":"2026-12-01T17:00:01.000Z","message":{"role":"assistant","usage":{"input":2,"output":3}}})");
  r.on_line(R"({"type":"message","timestamp":"2026-12-01T17:00:02.000Z","message":{"role":"user","usage":{"input":50}}})");
  ASSERT_TRUE(r.found());
  EXPECT_EQ(r.found()->input_tokens, 2);
  EXPECT_EQ(r.found()->output_tokens, 3);
}

// ---- formats and the attempt's view -------------------------------------------

TEST(usage_format, each_adapter_reads_its_own_cli_and_command_nothing) {
  EXPECT_EQ(usage_format_of(adapter_kind::codex), usage_format::codex);
  EXPECT_EQ(usage_format_of(adapter_kind::claude), usage_format::claude);
  EXPECT_EQ(usage_format_of(adapter_kind::pi), usage_format::pi);
  EXPECT_EQ(usage_format_of(adapter_kind::agy), usage_format::none);
  EXPECT_EQ(usage_format_of(adapter_kind::command), usage_format::none);
  for (auto f : {usage_format::codex, usage_format::claude, usage_format::pi})
    EXPECT_EQ(*parse_usage_format(to_string(f)), f);
  auto bad = parse_usage_format("agy");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.error().message(), "unknown usage reader \"agy\" (expected codex, claude or pi)");
  // A reader of no format reads nothing.
  auto none = read_all(usage_format::none, stdout_of("claude", "success_write"));
  EXPECT_TRUE(none.so_far().empty());
}

TEST(attempt_usage, the_attempts_output_reads_the_usage_as_lines_arrive) {
  attempt_output claude(adapter_kind::claude, review_guard::off);
  for (const auto& l : stdout_of("claude", "rate_limit_429_then_ok"))
    claude.feed(output_channel::out, l);
  EXPECT_EQ(claude.usage(), tokens(321, 12, 0, 0, 0, 0.001905));
  // A command agent reports nothing, unless the policy names its format.
  attempt_output plain(adapter_kind::command, review_guard::off);
  attempt_output speaking(adapter_kind::command, review_guard::off, {}, nullptr, usage_format::pi);
  for (const auto& l : stdout_of("pi", "success_write")) {
    plain.feed(output_channel::out, l);
    speaking.feed(output_channel::out, l);
    speaking.feed(output_channel::err, R"({"type":"message_end","message":{"role":"assistant","usage":{"input":99}}})");
  }
  EXPECT_TRUE(plain.usage().empty());
  EXPECT_EQ(speaking.usage(), tokens(2468, 112, 0, 0)) << "stderr is never read for usage";
}

} // namespace
} // namespace ad::runtime
