// The mock provider's script parsing and placeholder expansion.
#include <gtest/gtest.h>

#include "tools/mock-provider/request.hpp"
#include "tools/mock-provider/script.hpp"

namespace ad::mock_provider {
namespace {

script parsed(const char* text) {
  auto s = parse_script(json::parse(text));
  EXPECT_TRUE(s.is_ok()) << s.error().message();
  return s.is_ok() ? *s : script{};
}

std::string parse_error(const char* text) {
  auto s = parse_script(json::parse(text));
  return s.is_ok() ? "" : s.error().message();
}

TEST(mock_script, defaults_answer_done_and_count_tool_requests) {
  auto s = parsed("{}");
  EXPECT_EQ(s.count, count_rule::tools);
  EXPECT_TRUE(s.responses.empty());
  EXPECT_EQ(s.then.kind, reply_kind::text);
  EXPECT_EQ(s.then.text, "Done.");
  EXPECT_EQ(s.uncounted.text, "OK");
  EXPECT_EQ(&counted_reply(s, 7), &s.then);
}

TEST(mock_script, repeat_fills_several_slots_then_then_follows) {
  auto s = parsed(R"({"count": "all",
    "responses": [{"kind": "http_error", "status": 429, "repeat": 2}, {"kind": "drop"}],
    "then": {"kind": "shell", "command": "ls"}})");
  ASSERT_EQ(s.responses.size(), 3u);
  EXPECT_EQ(counted_reply(s, 0).status, 429);
  EXPECT_EQ(counted_reply(s, 1).status, 429);
  EXPECT_EQ(counted_reply(s, 2).kind, reply_kind::drop);
  EXPECT_EQ(counted_reply(s, 3).command, "ls");
  EXPECT_EQ(s.count, count_rule::all);
}

TEST(mock_script, headers_keep_their_order_and_numbers_become_text) {
  auto s = parsed(R"({"then": {"kind": "http_error", "status": 503,
    "headers": {"retry-after": 1, "x-b": "b", "x-a": "a"}}})");
  ASSERT_EQ(s.then.headers.size(), 3u);
  EXPECT_EQ(s.then.headers[0], (std::pair<std::string, std::string>{"retry-after", "1"}));
  EXPECT_EQ(s.then.headers[2].first, "x-a");
}

TEST(mock_script, refusals_name_the_json_pointer) {
  EXPECT_EQ(parse_error(R"({"responses": [{"kind": "text"}, {"kind": "explode"}]})"),
            "/responses/1/kind: unknown kind \"explode\"");
  EXPECT_EQ(parse_error(R"({"then": {"kind": "text", "txt": "x"}})"), "/then/txt: unknown key");
  EXPECT_EQ(parse_error(R"({"then": {"kind": "tool_call"}})"),
            "/then: \"tool\" is required for kind tool_call");
  EXPECT_EQ(parse_error(R"({"then": {"kind": "text", "repeat": 2}})"),
            "/then/repeat: is allowed only in \"responses\"");
  EXPECT_EQ(parse_error(R"({"then": {"kind": "drop", "close": "end"}})"),
            "/then/close: must be \"fin\", \"reset\" or (stream_cut only) \"end\"");
  EXPECT_EQ(parse_error(R"({"count": "some"})"), "/count: must be \"tools\" or \"all\"");
  EXPECT_EQ(parse_error(R"({"bogus": 1})"), "/bogus: unknown key");
}

TEST(mock_script, usage_is_given_to_every_reply_that_has_none_of_its_own) {
  auto s = parsed(R"({"usage": {"input_tokens": 800, "cache_read_tokens": 300},
    "responses": [{"kind": "text", "usage": {"input_tokens": 5, "output_tokens": 2}}],
    "then": {"kind": "text"}})");
  EXPECT_EQ(s.responses[0].usage.input, 5);
  EXPECT_EQ(s.responses[0].usage.output, 2);
  EXPECT_EQ(s.responses[0].usage.cache_read, 300);
  EXPECT_EQ(s.then.usage.input, 800);
  EXPECT_FALSE(s.then.usage.output);
  EXPECT_EQ(s.uncounted.usage.cache_read, 300);
  EXPECT_FALSE(parsed("{}").then.usage.input);
  EXPECT_EQ(parse_error(R"({"usage": {"input": 5}})"), "/usage/input: unknown key");
  EXPECT_EQ(parse_error(R"({"usage": {"output_tokens": -1}})"), "/usage/output_tokens: is out of range (-1)");
  EXPECT_EQ(parse_error(R"({"then": {"kind": "text", "usage": {"cache_write_tokens": "9"}}})"),
            "/then/usage/cache_write_tokens: must be an integer");
  EXPECT_EQ(parse_error(R"({"usage": 5})"), "/usage: must be an object");
}

TEST(mock_script, placeholders_expand_from_the_request) {
  request_view req;
  req.now = 1000;
  req.cwd = "/w";
  req.model = "m";
  EXPECT_EQ(expand("at ${now+60}, ${now-1}, ${now} in ${cwd} for ${model} ${other}", req),
            "at 1060, 999, 1000 in /w for m ${other}");
  auto j = expand_json(json::parse(R"({"resets_at": "${now+5}", "note": "in ${cwd}"})"), req);
  EXPECT_EQ(j["resets_at"], 1005);
  EXPECT_EQ(j["note"], "in /w");
}

TEST(mock_script, requests_tell_tools_stream_and_cwd_per_api) {
  auto codex = read_request(api_kind::responses,
                            R"({"model": "mock-model", "stream": true, "tools": [
      {"type": "function", "name": "exec_command"},
      {"type": "namespace", "name": "ns", "tools": [{"type": "function", "name": "close_agent"}]},
      {"type": "web_search"}],
      "input": [{"content": [{"text": "<cwd>/tmp/ws</cwd>"}]}]})",
                            3, 0);
  EXPECT_TRUE(codex.streaming);
  EXPECT_EQ(codex.tool_names, (std::vector<std::string>{"exec_command", "ns", "close_agent"}));
  EXPECT_EQ(codex.cwd, "/tmp/ws");
  EXPECT_EQ(codex.seq, 3u);
  auto pi = read_request(api_kind::chat,
                         R"({"messages": [{"content": "x\nCurrent working directory: /a b/ws"}],
      "tools": [{"type": "function", "function": {"name": "bash"}}]})",
                         0, 0);
  EXPECT_FALSE(pi.streaming);
  EXPECT_EQ(pi.tool_names, (std::vector<std::string>{"bash"}));
  EXPECT_EQ(pi.cwd, "/a b/ws");
  auto bad = read_request(api_kind::messages, "not json", 0, 0);
  EXPECT_FALSE(bad.parsed);
  EXPECT_TRUE(bad.tool_names.empty());
}

} // namespace
} // namespace ad::mock_provider
