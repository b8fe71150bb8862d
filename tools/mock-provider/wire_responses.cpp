// The OpenAI Responses API as codex reads it: `event: <type>` frames whose
// data carries the same "type", ending in response.completed or
// response.failed. Ids follow the request number (resp_mock_000, ...).
#include <cstdio>

#include "tools/mock-provider/wire.hpp"

namespace ad::mock_provider {
namespace {

std::string id(const char* prefix, const request_view& req) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%sresp_mock_%03zu", prefix, req.seq);
  return buf;
}

// input_tokens count every input token, cached and cache-written ones too
// (input_tokens_details tells those apart); output_tokens include the
// reasoning.
json usage(const usage_figures& u) {
  long long input = u.input + u.cache_read + u.cache_write;
  json details{{"cached_tokens", u.cache_read}};
  if (u.cache_write > 0) details["cache_write_tokens"] = u.cache_write;
  return json{{"input_tokens", input},
              {"input_tokens_details", details},
              {"output_tokens", u.output},
              {"output_tokens_details", {{"reasoning_tokens", u.reasoning}}},
              {"total_tokens", input + u.output}};
}

json response_object(const request_view& req, const char* status, json output) {
  return json{{"id", id("", req)},           {"object", "response"},
              {"created_at", req.now},       {"status", status},
              {"model", req.model},          {"output", std::move(output)},
              {"usage", nullptr}};
}

// Collects frames and numbers them.
struct frame_list {
  std::vector<std::string> frames;
  int seq = 0;
  void add(const std::string& type, const json& data) {
    json frame{{"type", type}, {"sequence_number", seq++}};
    for (const auto& [k, v] : data.items()) frame[k] = v;
    frames.push_back(sse_frame(type, frame));
  }
};

json reasoning_item(const answer& a, const request_view& req, const char* status) {
  json summary = json::array();
  if (status[0] == 'c') summary.push_back({{"type", "summary_text"}, {"text", a.thinking}});
  return json{{"id", id("rs_", req)}, {"type", "reasoning"}, {"summary", summary}};
}

json message_item(const std::string& text, const request_view& req, const char* status) {
  json content = json::array();
  if (status[0] == 'c')
    content.push_back({{"type", "output_text"}, {"text", text}, {"annotations", json::array()}});
  return json{{"id", id("msg_", req)}, {"type", "message"}, {"status", status},
              {"role", "assistant"}, {"content", content}};
}

json call_item(const tool_use& call, const request_view& req, const char* status) {
  return json{{"id", id("fc_", req)},
              {"type", "function_call"},
              {"status", status},
              {"call_id", id("call_", req)},
              {"name", call.name},
              {"arguments", status[0] == 'c' ? dump(call.arguments) : ""}};
}

// The frames of every output item of `a`; with `complete` false the text is
// left open after its deltas (a stream that fails part way).
json add_items(frame_list& f, const answer& a, const request_view& req, bool complete) {
  json output = json::array();
  int index = 0;
  if (!a.thinking.empty()) {
    f.add("response.output_item.added",
          {{"output_index", index}, {"item", reasoning_item(a, req, "in_progress")}});
    for (const auto& d : split_deltas(a.thinking, a.deltas))
      f.add("response.reasoning_summary_text.delta", {{"item_id", id("rs_", req)},
                                                      {"output_index", index},
                                                      {"summary_index", 0},
                                                      {"delta", d}});
    auto done = reasoning_item(a, req, "completed");
    f.add("response.output_item.done", {{"output_index", index}, {"item", done}});
    output.push_back(done);
    ++index;
  }
  if (!a.text.empty()) {
    auto item_id = id("msg_", req);
    f.add("response.output_item.added",
          {{"output_index", index}, {"item", message_item(a.text, req, "in_progress")}});
    f.add("response.content_part.added",
          {{"item_id", item_id},
           {"output_index", index},
           {"content_index", 0},
           {"part", {{"type", "output_text"}, {"text", ""}, {"annotations", json::array()}}}});
    for (const auto& d : split_deltas(a.text, a.deltas))
      f.add("response.output_text.delta",
            {{"item_id", item_id}, {"output_index", index}, {"content_index", 0}, {"delta", d}});
    if (!complete) return output;
    f.add("response.output_text.done",
          {{"item_id", item_id}, {"output_index", index}, {"content_index", 0}, {"text", a.text}});
    f.add("response.content_part.done",
          {{"item_id", item_id},
           {"output_index", index},
           {"content_index", 0},
           {"part", {{"type", "output_text"}, {"text", a.text}, {"annotations", json::array()}}}});
    auto done = message_item(a.text, req, "completed");
    f.add("response.output_item.done", {{"output_index", index}, {"item", done}});
    output.push_back(done);
    ++index;
  }
  if (a.call && complete) {
    auto item_id = id("fc_", req);
    auto args = dump(a.call->arguments);
    f.add("response.output_item.added",
          {{"output_index", index}, {"item", call_item(*a.call, req, "in_progress")}});
    for (const auto& d : split_deltas(args, a.deltas))
      f.add("response.function_call_arguments.delta",
            {{"item_id", item_id}, {"output_index", index}, {"delta", d}});
    f.add("response.function_call_arguments.done",
          {{"item_id", item_id}, {"output_index", index}, {"arguments", args}});
    auto done = call_item(*a.call, req, "completed");
    f.add("response.output_item.done", {{"output_index", index}, {"item", done}});
    output.push_back(done);
  }
  return output;
}

} // namespace

std::vector<std::string> responses_stream(const answer& a, const request_view& req) {
  frame_list f;
  f.add("response.created", {{"response", response_object(req, "in_progress", json::array())}});
  f.add("response.in_progress", {{"response", response_object(req, "in_progress", json::array())}});
  auto output = add_items(f, a, req, true);
  auto done = response_object(req, "completed", output);
  done["usage"] = usage(a.usage);
  f.add("response.completed", {{"response", done}});
  return f.frames;
}

json responses_message(const answer& a, const request_view& req) {
  frame_list scratch;
  auto done = response_object(req, "completed", add_items(scratch, a, req, true));
  done["usage"] = usage(a.usage);
  return done;
}

std::vector<std::string> responses_failed(const answer& partial, const json& error,
                                          const request_view& req) {
  frame_list f;
  f.add("response.created", {{"response", response_object(req, "in_progress", json::array())}});
  if (!partial.text.empty()) add_items(f, partial, req, false);
  auto failed = response_object(req, "failed", json::array());
  failed["error"] = error;
  f.add("response.failed", {{"response", failed}});
  return f.frames;
}

json responses_error_body(const json& error) { return json{{"error", error}}; }

} // namespace ad::mock_provider
