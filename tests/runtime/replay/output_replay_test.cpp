#include "runtime/replay/output_replay.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

constexpr const char* review_id = "g__t__p1__review__a01";

json codex_line(const char* text, const char* role = "review") {
  return attempt_line_body(review_id, adapter_kind::codex, role, output_channel::out, text, false,
                           0, 0);
}

constexpr const char* spawn_agent =
  R"({"type":"item.started","item":{"type":"collab_tool_call","tool":"spawn_agent"}})";

TEST(output_replay, a_line_body_names_its_attempt_cli_role_and_channel) {
  auto j = attempt_line_body("a", adapter_kind::claude, "worker", output_channel::err, "oops",
                             false, 0, 1'000);
  EXPECT_EQ(j, (json{{"attempt", "a"}, {"cli", "claude"}, {"role", "worker"}, {"channel", "err"},
                     {"text", "oops"}, {"at", 1'000}}));
  auto cut = attempt_line_body("a", adapter_kind::pi, "worker", output_channel::out, "x", true,
                               4096, 2'000);
  EXPECT_EQ(cut["truncated"], true);
  EXPECT_EQ(cut["dropped"], 4096);
}

TEST(output_replay, a_collaboration_tool_in_a_codex_review_is_decided_once) {
  output_replay replay;
  auto first = replay.line(codex_line(R"({"type":"thread.started","thread_id":"th-1"})"));
  ASSERT_TRUE(first.is_ok()) << first.error().message();
  EXPECT_TRUE(first->empty());
  auto hit = replay.line(codex_line(spawn_agent));
  ASSERT_TRUE(hit.is_ok());
  ASSERT_EQ(hit->size(), 1u);
  EXPECT_EQ((*hit)[0].kind, "attempt.review_control");
  EXPECT_EQ((*hit)[0].body, review_control_body(review_id, "spawn_agent"));
  auto again = replay.line(codex_line(spawn_agent));
  ASSERT_TRUE(again.is_ok());
  EXPECT_TRUE(again->empty());

  failure_inputs recorded;
  recorded.diagnostics_newest_first = {{"recorded", "not from the lines"}};
  auto in = replay.finish(review_id, recorded, {});
  EXPECT_EQ(in.review_control_tool, "spawn_agent");
  ASSERT_EQ(in.diagnostics_newest_first.size(), 1u);
  EXPECT_NE(in.diagnostics_newest_first[0].text.find("spawn_agent"), std::string::npos);
  EXPECT_EQ(replay.open_attempts(), 0u);
}

TEST(output_replay, a_worker_is_not_guarded) {
  output_replay replay;
  auto hit = replay.line(codex_line(spawn_agent, "worker"));
  ASSERT_TRUE(hit.is_ok());
  EXPECT_TRUE(hit->empty());
  EXPECT_FALSE(replay.finish(review_id, {}, {}).review_control_tool);
}

TEST(output_replay, diagnostics_come_from_the_lines_then_the_files_newest_first) {
  output_replay replay;
  auto line = attempt_line_body(
    "w", adapter_kind::codex, "worker", output_channel::out,
    R"({"type":"turn.failed","error":{"message":"You've hit your usage limit."}})", false, 0, 0);
  ASSERT_TRUE(replay.line(line).is_ok());
  auto in = replay.finish("w", {}, {{"agy-cli.log", "from the file"}});
  ASSERT_EQ(in.diagnostics_newest_first.size(), 2u);
  EXPECT_EQ(in.diagnostics_newest_first[0].text, "from the file");
  EXPECT_NE(in.diagnostics_newest_first[1].text.find("usage limit"), std::string::npos);
}

TEST(output_replay, an_attempt_without_lines_keeps_only_its_file_diagnostics) {
  output_replay replay;
  failure_inputs recorded;
  recorded.review_control_tool = "spawn_agent";
  recorded.diagnostics_newest_first = {{"stderr", "recorded"}};
  auto in = replay.finish("silent", recorded, {});
  EXPECT_TRUE(in.diagnostics_newest_first.empty());
  EXPECT_FALSE(in.review_control_tool);
}

TEST(output_replay, a_bad_line_is_an_error_naming_the_member) {
  output_replay replay;
  auto j = codex_line("x");
  j["channel"] = "both";
  auto bad = replay.line(j);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message().find("channel"), std::string::npos);
  j = codex_line("x");
  j["cli"] = "nope";
  EXPECT_FALSE(replay.line(j).is_ok());
  j = codex_line("x");
  j.erase("text");
  bad = replay.line(j);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message().find("text"), std::string::npos);
}

// A line's "at" was read with a default as an int64_t: 1e300 there was an
// undefined cast.
TEST(output_replay, a_line_time_with_an_exponent_is_an_error) {
  output_replay replay;
  auto j = codex_line("x");
  j["at"] = 1e300;
  auto bad = replay.line(j);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message().find("\"at\" holds 1e+300 where an integer belongs"),
            std::string::npos)
    << bad.error().message();
}

TEST(output_replay, the_silence_clock_decides_again_from_line_times_and_timer_firings) {
  output_replay replay;
  silence_settings settings{1'000, 2'500, 4'000};
  auto line = [](int64_t at) {
    return attempt_line_body("w", adapter_kind::claude, "worker", output_channel::out, "x", false,
                             0, at);
  };
  auto fire = [&](int64_t at) {
    auto out = replay.silence(attempt_silence_body("w", at));
    EXPECT_TRUE(out.is_ok()) << out.error().message();
    return out.is_ok() && out->size() == 1 ? (*out)[0] : replayed_decision{};
  };
  // The same clock, driven live.
  silence_clock live(settings, 10'000);
  ASSERT_TRUE(replay.follow(attempt_follow_body("w", settings, 10'000)).is_ok());
  ASSERT_TRUE(replay.line(line(10'500)).is_ok());
  live.on_output(10'500);
  for (int64_t at : {11'500, 12'500, 13'000, 14'000}) {
    auto d = fire(at);
    EXPECT_EQ(d.kind, "attempt.silence_due");
    EXPECT_EQ(d.body, silence_due_body("w", tool_activity::idle,
                                       live.check(at, tool_activity::idle)))
      << at;
  }
  auto stalled = fire(14'600);
  EXPECT_EQ(stalled.body["stall"], true);
  EXPECT_EQ(stalled.body["silent_ms"], 4'100);
  EXPECT_EQ(fire(15'000).body["stall"], false); // reported once

  EXPECT_FALSE(replay.silence(attempt_silence_body("other", 1)).is_ok());
  auto bad = attempt_silence_body("w", 1);
  bad.erase("at");
  EXPECT_FALSE(replay.silence(bad).is_ok());
  auto no_limit = attempt_follow_body("w", settings, 1);
  no_limit.erase("stall_limit_ms");
  EXPECT_FALSE(replay.follow(no_limit).is_ok());
}

TEST(output_replay, a_pi_tool_call_reported_running_defers_the_silence_inspection) {
  output_replay replay;
  silence_settings settings{1'000, 2'000, 0};
  auto phase = [&](std::string_view name) {
    auto out = replay.phase(pi_phase_body("p", "", name, "", {}));
    EXPECT_TRUE(out.is_ok() && out->empty());
  };
  auto fire = [&](int64_t at) {
    auto out = replay.silence(attempt_silence_body("p", at));
    EXPECT_TRUE(out.is_ok() && out->size() == 1);
    return out.is_ok() && out->size() == 1 ? (*out)[0].body : json();
  };
  silence_clock live(settings, 0);
  ASSERT_TRUE(replay.follow(attempt_follow_body("p", settings, 0)).is_ok());
  phase("awaiting-model");
  phase("tool-running");
  // The inspection falls due while the tool runs: deferred by a heartbeat.
  auto deferred = fire(2'000);
  EXPECT_EQ(deferred, silence_due_body("p", tool_activity::tool_running,
                                       live.check(2'000, tool_activity::tool_running)));
  EXPECT_EQ(deferred["inspect"], false);
  EXPECT_EQ(deferred["tools"], "running");
  // The tool call ended: the deferred inspection is due at the next check.
  phase("awaiting-model");
  auto inspected = fire(3'000);
  EXPECT_EQ(inspected, silence_due_body("p", tool_activity::idle,
                                        live.check(3'000, tool_activity::idle)));
  EXPECT_EQ(inspected["inspect"], true);
  EXPECT_FALSE(replay.phase(json{{"attempt", "p"}}).is_ok());

  // The phase is forgotten with the attempt: a later attempt of that
  // identity starts idle.
  (void) replay.finish("p", {}, {});
  ASSERT_TRUE(replay.follow(attempt_follow_body("p", settings, 10'000)).is_ok());
  EXPECT_EQ(fire(12'000)["inspect"], true);
}

TEST(output_replay, only_the_tool_running_phase_counts_as_a_running_tool) {
  EXPECT_EQ(tool_activity_of_pi_phase("tool-running"), tool_activity::tool_running);
  for (auto phase : {"", "starting", "awaiting-model", "finishing", "unknown"})
    EXPECT_EQ(tool_activity_of_pi_phase(phase), tool_activity::idle) << phase;
}

} // namespace
} // namespace ad::runtime
