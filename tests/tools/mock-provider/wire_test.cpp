// The wire renderers: what each API's stream and bodies look like.
#include <gtest/gtest.h>

#include "tools/mock-provider/wire.hpp"

namespace ad::mock_provider {
namespace {

reply_spec reply(const char* text) {
  auto s = parse_script(json::parse(std::string(R"({"then": )") + text + "}"));
  EXPECT_TRUE(s.is_ok()) << s.error().message();
  return s.is_ok() ? s->then : reply_spec{};
}

request_view request(api_kind api, const char* body) { return read_request(api, body, 0, 1000); }

// The data of each SSE frame.
std::vector<json> data_of(const http_reply& r) {
  std::vector<json> out;
  for (const auto& f : r.events) {
    auto at = f.find("data: ");
    auto j = json::parse(f.substr(at + 6), nullptr, false);
    out.push_back(j.is_discarded() ? json(f.substr(at + 6, f.size() - at - 8)) : j);
  }
  return out;
}

std::vector<std::string> types_of(const http_reply& r) {
  std::vector<std::string> out;
  for (const auto& d : data_of(r)) out.push_back(d.is_object() ? d.value("type", "") : "");
  return out;
}

std::string header(const http_reply& r, const std::string& name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return "<none>";
}

const char* codex_tools = R"({"model": "mock-model", "stream": true,
    "tools": [{"type": "function", "name": "exec_command"}]})";

TEST(mock_wire, responses_text_stream_ends_in_response_completed) {
  auto r = render_reply(api_kind::responses, reply(R"({"kind": "text", "text": "Done: ok."})"),
                        request(api_kind::responses, codex_tools));
  ASSERT_EQ(r.shape, reply_shape::stream);
  EXPECT_EQ(r.content_type, "text/event-stream");
  EXPECT_EQ(types_of(r), (std::vector<std::string>{
                             "response.created", "response.in_progress",
                             "response.output_item.added", "response.content_part.added",
                             "response.output_text.delta", "response.output_text.delta",
                             "response.output_text.delta", "response.output_text.done",
                             "response.content_part.done", "response.output_item.done",
                             "response.completed"}));
  EXPECT_EQ(r.events[0].rfind("event: response.created\ndata: {\"type\":", 0), 0u);
  EXPECT_EQ(data_of(r).back()["response"]["usage"]["input_tokens"], 1200);
  EXPECT_EQ(header(r, "x-request-id"), "<none>");
}

TEST(mock_wire, responses_shell_is_an_exec_command_call) {
  auto r = render_reply(api_kind::responses, reply(R"({"kind": "shell", "command": "ls -l"})"),
                        request(api_kind::responses, codex_tools));
  auto done = data_of(r)[data_of(r).size() - 2];
  EXPECT_EQ(done["type"], "response.output_item.done");
  EXPECT_EQ(done["item"]["name"], "exec_command");
  EXPECT_EQ(done["item"]["call_id"], "call_resp_mock_000");
  EXPECT_EQ(json::parse(done["item"]["arguments"].get<std::string>())["cmd"], "ls -l");
}

TEST(mock_wire, responses_stream_error_and_cut) {
  auto failed = render_reply(
      api_kind::responses,
      reply(R"({"kind": "stream_error", "error": {"code": "context_length_exceeded"}})"),
      request(api_kind::responses, codex_tools));
  EXPECT_EQ(types_of(failed), (std::vector<std::string>{"response.created", "response.failed"}));
  EXPECT_EQ(data_of(failed)[1]["response"]["error"]["code"], "context_length_exceeded");
  auto cut = render_reply(api_kind::responses,
                          reply(R"({"kind": "stream_cut", "after_events": 5, "close": "end"})"),
                          request(api_kind::responses, codex_tools));
  EXPECT_EQ(cut.cut_after, 5);
  EXPECT_EQ(cut.close, close_mode::end);
  EXPECT_EQ(types_of(cut)[4], "response.output_text.delta");
}

TEST(mock_wire, messages_write_file_uses_write_with_an_absolute_path) {
  auto req = request(api_kind::messages, R"({"model": "claude-opus-4-8", "stream": true,
      "tools": [{"name": "Bash"}, {"name": "Write"}],
      "messages": [{"content": "Primary working directory: /tmp/ws\n"}]})");
  auto r = render_reply(api_kind::messages,
                        reply(R"({"kind": "write_file", "text": "I'll write it.",
                                  "path": "hello.txt", "content": "hi\n"})"),
                        req);
  EXPECT_EQ(types_of(r), (std::vector<std::string>{
                             "message_start", "content_block_start", "content_block_delta",
                             "content_block_delta", "content_block_delta", "content_block_stop",
                             "content_block_start", "content_block_delta", "content_block_delta",
                             "content_block_delta", "content_block_stop", "message_delta",
                             "message_stop"}));
  auto tool = data_of(r)[6]["content_block"];
  EXPECT_EQ(tool["name"], "Write");
  std::string args;
  for (int i = 7; i <= 9; ++i) args += data_of(r)[i]["delta"]["partial_json"].get<std::string>();
  EXPECT_EQ(json::parse(args)["file_path"], "/tmp/ws/hello.txt");
  EXPECT_EQ(data_of(r)[11]["delta"]["stop_reason"], "tool_use");
  EXPECT_EQ(header(r, "request-id"), "req_mock_00000000000000000001");
}

TEST(mock_wire, messages_without_stream_get_whole_bodies_or_the_fallback_status) {
  auto req = request(api_kind::messages,
                     R"({"model": "m", "stream": false, "tools": [{"name": "Bash"}]})");
  auto text = render_reply(api_kind::messages, reply(R"({"kind": "text", "text": "ok"})"), req);
  ASSERT_EQ(text.shape, reply_shape::body);
  auto body = json::parse(text.body);
  EXPECT_EQ(body["content"][0]["text"], "ok");
  EXPECT_EQ(body["stop_reason"], "end_turn");
  auto err = render_reply(api_kind::messages, reply(R"({"kind": "stream_error", "error":
      {"type": "overloaded_error", "message": "Overloaded"}})"),
                          req);
  EXPECT_EQ(err.status, 529);
  EXPECT_EQ(json::parse(err.body)["error"]["type"], "overloaded_error");
  auto cut = render_reply(
      api_kind::messages, reply(R"({"kind": "stream_cut", "after_events": 3, "close": "reset"})"),
      req);
  ASSERT_EQ(cut.shape, reply_shape::stream);
  EXPECT_EQ(cut.content_type, "application/json");
  EXPECT_EQ(cut.cut_after, 1);
  EXPECT_EQ(cut.close, close_mode::reset);
  auto drop = render_reply(api_kind::messages, reply(R"({"kind": "drop"})"), req);
  EXPECT_EQ(drop.shape, reply_shape::drop);
}

TEST(mock_wire, chat_stream_carries_reasoning_tool_call_usage_and_done) {
  auto req = request(api_kind::chat, R"({"model": "laguna-s", "stream": true,
      "tools": [{"type": "function", "function": {"name": "write"}}]})");
  auto r = render_reply(api_kind::chat,
                        reply(R"({"kind": "write_file", "thinking": "abc",
                                  "path": "a.txt", "content": "a\n"})"),
                        req);
  auto d = data_of(r);
  ASSERT_EQ(d.size(), 10u);
  EXPECT_EQ(d[0]["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(d[0]["choices"][0]["delta"]["reasoning_content"], "a");
  EXPECT_EQ(d[3]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"], "write");
  EXPECT_EQ(d[3]["choices"][0]["delta"]["tool_calls"][0]["id"], "call_mock0001");
  EXPECT_EQ(d[7]["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(d[8]["usage"]["prompt_tokens"], 1234);
  EXPECT_EQ(r.events.back(), "data: [DONE]\n\n");
  auto failed = render_reply(api_kind::chat,
                             reply(R"({"kind": "stream_error", "text": "abcdef", "deltas": 2,
                                       "error": {"message": "boom"}})"),
                             req);
  auto f = data_of(failed);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[2], json::parse(R"({"error": {"message": "boom"}})"));
}

// What each API says of an answer's usage, and what the log says it told.
TEST(mock_wire, each_api_writes_the_usage_in_its_own_fields) {
  const char* figures = R"({"kind": "text", "text": "ok", "usage": {"input_tokens": 800,
      "cache_read_tokens": 300, "cache_write_tokens": 100, "output_tokens": 40, "reasoning_tokens": 8}})";
  auto codex = render_reply(api_kind::responses, reply(figures), request(api_kind::responses, codex_tools));
  EXPECT_EQ(data_of(codex).back()["response"]["usage"], json::parse(R"({"input_tokens": 1200,
      "input_tokens_details": {"cached_tokens": 300, "cache_write_tokens": 100}, "output_tokens": 40,
      "output_tokens_details": {"reasoning_tokens": 8}, "total_tokens": 1240})"));
  EXPECT_EQ(served_usage(codex), json::parse(R"({"input_tokens": 800, "output_tokens": 40,
      "cache_read_tokens": 300, "cache_write_tokens": 100, "reasoning_tokens": 8})"));

  auto claude_req = request(api_kind::messages, R"({"model": "m", "stream": true, "tools": [{"name": "Bash"}]})");
  auto claude = render_reply(api_kind::messages, reply(figures), claude_req);
  auto frames = data_of(claude);
  EXPECT_EQ(frames.front()["message"]["usage"], json::parse(R"({"input_tokens": 800, "output_tokens": 1,
      "cache_creation_input_tokens": 100, "cache_read_input_tokens": 300})"));
  EXPECT_EQ(frames[frames.size() - 2]["usage"]["output_tokens"], 40);
  EXPECT_EQ(served_usage(claude), json::parse(R"({"input_tokens": 800, "output_tokens": 40,
      "cache_read_tokens": 300, "cache_write_tokens": 100})"))
      << "the Messages API has no reasoning count";

  auto pi_req = request(api_kind::chat, R"({"model": "m", "stream": true})");
  auto pi = render_reply(api_kind::chat, reply(figures), pi_req);
  auto chunks = data_of(pi);
  EXPECT_EQ(chunks[chunks.size() - 2]["usage"], json::parse(R"({"prompt_tokens": 1200, "completion_tokens": 40,
      "total_tokens": 1240, "prompt_tokens_details": {"cached_tokens": 400, "cache_write_tokens": 100},
      "completion_tokens_details": {"reasoning_tokens": 8}})"));
  EXPECT_EQ(served_usage(pi)["reasoning_tokens"], 8);
}

TEST(mock_wire, defaults_are_the_captures_figures_and_only_whole_answers_are_served) {
  auto codex = render_reply(api_kind::responses, reply(R"({"kind": "text", "text": "ok"})"),
                            request(api_kind::responses, codex_tools));
  EXPECT_EQ(served_usage(codex), json::parse(R"({"input_tokens": 1200, "output_tokens": 40,
      "cache_read_tokens": 0, "cache_write_tokens": 0, "reasoning_tokens": 0})"));
  auto pi = render_reply(api_kind::chat, reply(R"({"kind": "text", "text": "ok"})"),
                         request(api_kind::chat, R"({"model": "m", "stream": false})"));
  EXPECT_EQ(json::parse(pi.body)["usage"], json::parse(R"({"prompt_tokens": 1234, "completion_tokens": 56,
      "total_tokens": 1290})"));
  EXPECT_EQ(served_usage(pi)["input_tokens"], 1234);
  auto claude_req = request(api_kind::messages, R"({"model": "m", "stream": true, "tools": [{"name": "Bash"}]})");
  // Cut after message_start and two more events: no answer, though the
  // start told the input.
  auto cut = render_reply(api_kind::messages, reply(R"({"kind": "stream_cut", "after_events": 3})"), claude_req);
  EXPECT_EQ(data_of(cut).front()["message"]["usage"]["input_tokens"], 321);
  EXPECT_TRUE(served_usage(cut).is_null());
  // A "cut" after the last frame is a whole answer.
  auto whole = render_reply(api_kind::messages, reply(R"({"kind": "stream_cut", "after_events": 99})"), claude_req);
  EXPECT_EQ(served_usage(whole), json::parse(R"({"input_tokens": 321, "output_tokens": 12,
      "cache_read_tokens": 0, "cache_write_tokens": 0})"));
  auto failed = render_reply(api_kind::messages, reply(R"({"kind": "stream_error", "error": {"type": "x"}})"),
                             claude_req);
  EXPECT_TRUE(served_usage(failed).is_null());
  auto codex_cut = render_reply(api_kind::responses, reply(R"({"kind": "stream_cut", "after_events": 5})"),
                                request(api_kind::responses, codex_tools));
  EXPECT_TRUE(served_usage(codex_cut).is_null()) << "response.completed never came";
  auto error = render_reply(api_kind::chat, reply(R"({"kind": "http_error", "status": 429})"),
                            request(api_kind::chat, R"({"stream": true})"));
  EXPECT_TRUE(served_usage(error).is_null());
}

TEST(mock_wire, http_errors_keep_status_headers_and_body) {
  auto r = render_reply(api_kind::chat,
                        reply(R"({"kind": "http_error", "status": 429, "delay_ms": 5,
                                  "headers": {"retry-after": "1"},
                                  "body": {"error": {"message": "slow down"}}})"),
                        request(api_kind::chat, "{}"));
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.delay_ms, 5);
  EXPECT_EQ(header(r, "retry-after"), "1");
  EXPECT_EQ(json::parse(r.body)["error"]["message"], "slow down");
  auto plain =
      render_reply(api_kind::chat,
                   reply(R"({"kind": "http_error", "status": 502, "body": "Bad Gateway"})"),
                   request(api_kind::chat, "{}"));
  EXPECT_EQ(plain.content_type, "text/plain");
  EXPECT_EQ(plain.body, "Bad Gateway");
}

TEST(mock_wire, deltas_never_split_a_utf8_sequence) {
  auto parts = split_deltas("h\xc3\xa9llo w\xc3\xb6rld", 4);
  std::string joined;
  for (const auto& p : parts) {
    joined += p;
    EXPECT_NE(static_cast<unsigned char>(p[0]) & 0xC0, 0x80) << p;
  }
  EXPECT_EQ(joined, "h\xc3\xa9llo w\xc3\xb6rld");
  EXPECT_TRUE(split_deltas("", 3).empty());
}

} // namespace
} // namespace ad::mock_provider
