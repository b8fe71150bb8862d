// OpenAI Chat Completions as pi (openai SDK) reads it: `data:` chunks of
// chat.completion.chunk (reasoning_content, content, tool_calls deltas), a
// chunk with finish_reason, a usage chunk, then `data: [DONE]`. A failure
// inside the stream is a chunk holding only {"error": ...}, which the SDK
// raises as an API error. Ids follow the request number.
#include <cstdio>

#include "tools/mock-provider/wire.hpp"

namespace ad::mock_provider {
namespace {

std::string completion_id(const request_view& req) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "chatcmpl-mock%06zu", req.seq + 1);
  return buf;
}

std::string call_id(const request_view& req) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "call_mock%04zu", req.seq + 1);
  return buf;
}

// prompt_tokens count every input token; cached_tokens count the cache's
// reads and writes together, as OpenRouter reports them and pi reads them
// (cached - cache_write_tokens are its reads); completion_tokens include the
// reasoning.
json usage(const usage_figures& u) {
  long long prompt = u.input + u.cache_read + u.cache_write;
  json out{{"prompt_tokens", prompt}, {"completion_tokens", u.output}, {"total_tokens", prompt + u.output}};
  if (u.cache_read > 0 || u.cache_write > 0)
    out["prompt_tokens_details"] = {{"cached_tokens", u.cache_read + u.cache_write},
                                    {"cache_write_tokens", u.cache_write}};
  if (u.reasoning > 0) out["completion_tokens_details"] = {{"reasoning_tokens", u.reasoning}};
  return out;
}

struct chunk_list {
  const request_view& req;
  std::vector<std::string> frames;
  bool first = true;

  json base() const {
    return json{{"id", completion_id(req)},
                {"object", "chat.completion.chunk"},
                {"created", req.now},
                {"model", req.model}};
  }
  void delta(json d, json finish = nullptr) {
    if (first) d["role"] = "assistant";
    first = false;
    auto c = base();
    c["choices"] =
        json::array({{{"index", 0}, {"delta", std::move(d)}, {"finish_reason", finish}}});
    frames.push_back(sse_frame("", c));
  }
};

void add_content(chunk_list& c, const answer& a, bool complete) {
  for (const auto& d : split_deltas(a.thinking, a.deltas)) c.delta({{"reasoning_content", d}});
  for (const auto& d : split_deltas(a.text, a.deltas)) c.delta({{"content", d}});
  if (!a.call || !complete) return;
  c.delta({{"tool_calls",
            json::array({{{"index", 0},
                          {"id", call_id(c.req)},
                          {"type", "function"},
                          {"function", {{"name", a.call->name}, {"arguments", ""}}}}})}});
  for (const auto& d : split_deltas(dump(a.call->arguments), a.deltas))
    c.delta({{"tool_calls", json::array({{{"index", 0}, {"function", {{"arguments", d}}}}})}});
}

} // namespace

std::vector<std::string> chat_stream(const answer& a, const request_view& req) {
  chunk_list c{req, {}};
  add_content(c, a, true);
  c.delta(json::object(), a.call ? "tool_calls" : "stop");
  auto u = c.base();
  u["choices"] = json::array();
  u["usage"] = usage(a.usage);
  c.frames.push_back(sse_frame("", u));
  c.frames.push_back("data: [DONE]\n\n");
  return c.frames;
}

json chat_message(const answer& a, const request_view& req) {
  json message{{"role", "assistant"}, {"content", a.text.empty() ? json(nullptr) : json(a.text)}};
  if (!a.thinking.empty()) message["reasoning_content"] = a.thinking;
  if (a.call)
    message["tool_calls"] = json::array(
        {{{"id", call_id(req)},
          {"type", "function"},
          {"function",
           {{"name", a.call->name}, {"arguments", dump(a.call->arguments)}}}}});
  return json{{"id", completion_id(req)},
              {"object", "chat.completion"},
              {"created", req.now},
              {"model", req.model},
              {"choices", json::array({{{"index", 0},
                                        {"message", message},
                                        {"finish_reason", a.call ? "tool_calls" : "stop"}}})},
              {"usage", usage(a.usage)}};
}

std::vector<std::string> chat_failed(const answer& partial, const json& error,
                                     const request_view& req) {
  chunk_list c{req, {}};
  add_content(c, partial, false);
  c.frames.push_back(sse_frame("", json{{"error", error}}));
  return c.frames;
}

json chat_error_body(const json& error) { return json{{"error", error}}; }

} // namespace ad::mock_provider
