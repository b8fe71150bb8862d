// The Anthropic Messages API as claude reads it: message_start, one
// content block per part (thinking, text, tool_use) with its deltas,
// message_delta with the stop reason, message_stop; an `error` frame for a
// failure inside the stream. Ids follow the request number.
#include <cstdio>

#include "tools/mock-provider/wire.hpp"

namespace ad::mock_provider {
namespace {

std::string id(const char* prefix, const request_view& req, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%0*zx", prefix, digits, req.seq + 1);
  return buf;
}

std::string model_of(const request_view& req) {
  return req.model.empty() ? std::string("claude-mock") : req.model;
}

// input_tokens leave out the cache's reads and writes, which have their own
// counts.
json start_usage(const usage_figures& u) {
  return json{{"input_tokens", u.input},
              {"output_tokens", 1},
              {"cache_creation_input_tokens", u.cache_write},
              {"cache_read_input_tokens", u.cache_read}};
}

json message_object(const request_view& req, json content, json stop_reason, const usage_figures& u,
                    long long output_tokens) {
  auto usage = start_usage(u);
  usage["output_tokens"] = output_tokens;
  return json{{"id", id("msg_mock_", req, 20)},
              {"type", "message"},
              {"role", "assistant"},
              {"model", model_of(req)},
              {"content", std::move(content)},
              {"stop_reason", std::move(stop_reason)},
              {"stop_sequence", nullptr},
              {"usage", usage}};
}

json blocks(const answer& a, const request_view& req) {
  json content = json::array();
  if (!a.thinking.empty())
    content.push_back(
        {{"type", "thinking"}, {"thinking", a.thinking}, {"signature", "mock-signature"}});
  if (!a.text.empty()) content.push_back({{"type", "text"}, {"text", a.text}});
  if (a.call)
    content.push_back({{"type", "tool_use"},
                       {"id", id("toolu_mock_", req, 16)},
                       {"name", a.call->name},
                       {"input", a.call->arguments}});
  return content;
}

struct frame_list {
  std::vector<std::string> frames;
  void add(const std::string& type, const json& data) {
    json frame{{"type", type}};
    for (const auto& [k, v] : data.items()) frame[k] = v;
    frames.push_back(sse_frame(type, frame));
  }
};

void open_stream(frame_list& f, const answer& a, const request_view& req) {
  f.add("message_start", {{"message", message_object(req, json::array(), nullptr, a.usage, 1)}});
}

// Content blocks with their deltas; with `complete` false the text block is
// left open after its deltas and nothing follows it.
void add_blocks(frame_list& f, const answer& a, const request_view& req, bool complete) {
  int index = 0;
  if (!a.thinking.empty() && complete) {
    f.add("content_block_start",
          {{"index", index},
           {"content_block", {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}}});
    for (const auto& d : split_deltas(a.thinking, a.deltas))
      f.add("content_block_delta",
            {{"index", index}, {"delta", {{"type", "thinking_delta"}, {"thinking", d}}}});
    f.add("content_block_delta",
          {{"index", index},
           {"delta", {{"type", "signature_delta"}, {"signature", "mock-signature"}}}});
    f.add("content_block_stop", {{"index", index}});
    ++index;
  }
  if (!a.text.empty()) {
    f.add("content_block_start",
          {{"index", index}, {"content_block", {{"type", "text"}, {"text", ""}}}});
    for (const auto& d : split_deltas(a.text, a.deltas))
      f.add("content_block_delta",
            {{"index", index}, {"delta", {{"type", "text_delta"}, {"text", d}}}});
    if (!complete) return;
    f.add("content_block_stop", {{"index", index}});
    ++index;
  }
  if (a.call && complete) {
    f.add("content_block_start", {{"index", index},
                                  {"content_block",
                                   {{"type", "tool_use"},
                                    {"id", id("toolu_mock_", req, 16)},
                                    {"name", a.call->name},
                                    {"input", json::object()}}}});
    for (const auto& d : split_deltas(dump(a.call->arguments), a.deltas))
      f.add("content_block_delta",
            {{"index", index}, {"delta", {{"type", "input_json_delta"}, {"partial_json", d}}}});
    f.add("content_block_stop", {{"index", index}});
  }
}

} // namespace

std::vector<std::string> messages_stream(const answer& a, const request_view& req) {
  frame_list f;
  open_stream(f, a, req);
  add_blocks(f, a, req, true);
  f.add("message_delta", {{"delta", {{"stop_reason", a.call ? "tool_use" : "end_turn"},
                                     {"stop_sequence", nullptr}}},
                          {"usage", {{"output_tokens", a.usage.output}}}});
  f.add("message_stop", json::object());
  return f.frames;
}

json messages_message(const answer& a, const request_view& req) {
  return message_object(req, blocks(a, req), a.call ? "tool_use" : "end_turn", a.usage, a.usage.output);
}

std::vector<std::string> messages_failed(const answer& partial, const json& error,
                                         const request_view& req) {
  frame_list f;
  open_stream(f, partial, req);
  add_blocks(f, partial, req, false);
  f.add("error", {{"error", error}});
  return f.frames;
}

json messages_error_body(const json& error) { return json{{"type", "error"}, {"error", error}}; }

} // namespace ad::mock_provider
