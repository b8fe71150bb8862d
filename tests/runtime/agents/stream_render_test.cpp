#include "runtime/agents/stream_render.hpp"

#include <cstdlib>
#include <gtest/gtest.h>
#include <random>

#include "runtime/core/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

const std::filesystem::path render_fixtures = test::source_dir() / "tests/fixtures/agents/render";

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    out.push_back(text.substr(pos, nl - pos));
    pos = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}

// Renders <cli>.stream and compares with <cli>.expected (the golden output:
// rendered lines, plus "#session <id>" where a session id was discovered).
// AD_UPDATE_GOLDEN=1 rewrites the expected files.
void check_golden(adapter_kind kind) {
  std::string name(to_string(kind));
  auto input = read_file(render_fixtures / (name + ".stream"));
  ASSERT_TRUE(input) << input.error().to_string();
  render_state state;
  std::string actual;
  for (const auto& line : split_lines(*input)) {
    auto r = render_stream_line(kind, output_channel::out, line, state);
    for (const auto& l : r.lines)
      actual += l + "\n";
    if (r.discovered_session_id)
      actual += "#session " + *r.discovered_session_id + "\n";
  }
  auto golden_path = render_fixtures / (name + ".expected");
  if (std::getenv("AD_UPDATE_GOLDEN") != nullptr) {
    ASSERT_TRUE(write_file_atomic(golden_path, actual));
  }
  auto expected = read_file(golden_path);
  ASSERT_TRUE(expected) << expected.error().to_string();
  EXPECT_EQ(actual, *expected) << "rendering of " << name << " changed";
  EXPECT_EQ(state.lines_seen, split_lines(*input).size());
}

TEST(stream_render, codex_golden) { check_golden(adapter_kind::codex); }
TEST(stream_render, claude_golden) { check_golden(adapter_kind::claude); }
TEST(stream_render, pi_golden) { check_golden(adapter_kind::pi); }
TEST(stream_render, agy_golden) { check_golden(adapter_kind::agy); }
TEST(stream_render, command_golden) { check_golden(adapter_kind::command); }

TEST(stream_render, session_ids_are_discovered_once_per_change) {
  render_state state;
  auto r = render_codex_line(R"({"type":"thread.started","thread_id":"t-1"})", state);
  EXPECT_EQ(r.discovered_session_id, "t-1");
  EXPECT_EQ(state.session_id, "t-1");
  r = render_codex_line(R"({"type":"thread.started","thread_id":"t-1"})", state);
  EXPECT_FALSE(r.discovered_session_id);

  render_state claude;
  r = render_claude_line(R"({"type":"assistant","session_id":"s-1","message":{"content":[]}})",
                         claude);
  EXPECT_EQ(r.discovered_session_id, "s-1"); // any event carries it, not only init
  r = render_claude_line(R"({"type":"system","subtype":"init","session_id":"s-2"})", claude);
  EXPECT_EQ(r.discovered_session_id, "s-2");

  render_state pi;
  r = render_pi_line(R"({"type":"session","version":3,"id":"p-1"})", pi);
  EXPECT_EQ(r.discovered_session_id, "p-1");
}

TEST(stream_render, claude_result_is_not_repeated_after_the_same_assistant_text) {
  render_state state;
  render_claude_line(
    R"({"type":"assistant","message":{"content":[{"type":"text","text":"Done."}]}})", state);
  auto r = render_claude_line(R"({"type":"result","subtype":"success","result":"Done."})", state);
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_EQ(r.lines[0], "result: success");
}

TEST(stream_render, stderr_lines_are_marked_and_long_lines_cut) {
  render_state state;
  auto r = render_stream_line(adapter_kind::claude, output_channel::err, "warn: x\r", state);
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_EQ(r.lines[0], "[stderr] warn: x");
  std::string huge(3 * max_rendered_chars, 'y');
  r = render_stream_line(adapter_kind::command, output_channel::out, huge, state);
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_LE(r.lines[0].size(), max_rendered_chars + 3);
  // A cut never splits a UTF-8 sequence.
  std::string accents;
  for (size_t i = 0; i < max_rendered_chars; ++i)
    accents += "é";
  r = render_stream_line(adapter_kind::command, output_channel::out, accents, state);
  std::string body = r.lines[0].substr(0, r.lines[0].size() - 3); // drop "…"
  EXPECT_EQ(body.size() % 2, 0u);
}

TEST(stream_render, garbage_never_throws_and_passes_through) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> byte(0, 255);
  render_state state;
  for (int i = 0; i < 2000; ++i) {
    std::string line;
    int len = i % 300;
    for (int j = 0; j < len; ++j)
      line += static_cast<char>(byte(rng));
    if (i % 3 == 0)
      line = "{" + line; // looks like JSON, is not
    for (auto kind : {adapter_kind::codex, adapter_kind::claude, adapter_kind::agy,
                      adapter_kind::pi, adapter_kind::command})
      EXPECT_NO_THROW(render_stream_line(kind, output_channel::out, line, state));
  }
  // Valid JSON of unexpected shapes.
  for (std::string_view line :
       {"{}", "{\"type\":null}", "{\"type\":[1]}", "{\"item\":{\"type\":\"todo_list\",\"items\":7}}",
        "{\"type\":\"item.completed\",\"item\":{\"type\":\"file_change\",\"changes\":[1,null]}}",
        "{\"type\":\"message_end\",\"message\":[]}", "{\"type\":\"result\",\"result\":{}}",
        "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":\"x\"}}"})
    for (auto kind : {adapter_kind::codex, adapter_kind::claude, adapter_kind::agy,
                      adapter_kind::pi})
      EXPECT_NO_THROW(render_stream_line(kind, output_channel::out, line, state));
  auto r = render_stream_line(adapter_kind::codex, output_channel::out, "{not json", state);
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_EQ(r.lines[0], "{not json");
}

} // namespace
} // namespace ad::runtime

namespace ad::runtime {
namespace {

// Every line of a real capture, rendered (tests/fixtures/realcli).
std::vector<std::string> render_capture(adapter_kind kind, std::string_view folder) {
  auto text = read_file(test::source_dir() / "tests/fixtures/realcli" / folder / "stdout.jsonl");
  EXPECT_TRUE(text);
  render_state state;
  std::vector<std::string> out;
  for (const auto& line : split_lines(*text))
    for (auto& shown : render_stream_line(kind, output_channel::out, line, state).lines)
      out.push_back(shown);
  return out;
}

bool shows(const std::vector<std::string>& lines, std::string_view part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos)
      return true;
  return false;
}

TEST(stream_render, the_clis_own_retries_and_compactions_are_shown) {
  auto claude = render_capture(adapter_kind::claude, "claude/connection_refused");
  EXPECT_TRUE(shows(claude, "api retry 1/10: unknown, next in 578 ms")) << claude.front();
  EXPECT_TRUE(shows(claude, "api retry 10/10"));
  auto pi = render_capture(adapter_kind::pi, "pi/rate_limit_429_then_ok");
  EXPECT_TRUE(shows(pi, "retry 1/3: 429 Rate limit reached"));
  EXPECT_TRUE(shows(pi, "retry succeeded"));
  auto exhausted = render_capture(adapter_kind::pi, "pi/connection_refused");
  EXPECT_TRUE(shows(exhausted, "retries exhausted: Connection error."));
  auto compacted = render_capture(adapter_kind::pi, "pi/resume_after_failed_compaction");
  EXPECT_TRUE(shows(compacted, "compacting context (overflow)"));
  EXPECT_TRUE(shows(compacted, "context compacted"));
  auto codex = render_capture(adapter_kind::codex, "codex/rate_limit_429_then_ok");
  EXPECT_TRUE(shows(codex, "error: Reconnecting... 1/5"));
}

} // namespace
} // namespace ad::runtime
