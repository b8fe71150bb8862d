#pragma once
// The three wire formats: how a scripted reply looks on the OpenAI Responses
// API (wire_responses.cpp), the Anthropic Messages API (wire_messages.cpp) and
// OpenAI Chat Completions (wire_chat.cpp). render_reply is the one entry: it
// expands the script's placeholders, maps the CLI-neutral kinds (shell,
// write_file) onto the tool the request offers, and picks the streamed or
// whole-body form the request asked for. Pure functions of their arguments;
// never throw except bad_alloc, no I/O.

#include <optional>
#include <string>
#include <vector>

#include "tools/mock-provider/reply.hpp"
#include "tools/mock-provider/request.hpp"

namespace ad::mock_provider {

struct tool_use {
  std::string name;
  json arguments = json::object();
};

// The usage one answer reports, every field set (usage_for).
struct usage_figures {
  long long input = 0, output = 0, cache_read = 0, cache_write = 0, reasoning = 0;
};

// The script's usage with the API's defaults for what it leaves unset.
usage_figures usage_for(api_kind api, const usage_spec& spec);

// The content of one assistant turn, in stream order: reasoning, text, call.
struct answer {
  std::string thinking;
  std::string text;
  std::optional<tool_use> call;
  int deltas = 3;
  usage_figures usage;
};

http_reply render_reply(api_kind api, const reply_spec& spec, const request_view& req);

// The tool call a shell, write_file or tool_call reply stands for on `api`,
// using the tool names the request offers (see README.md for the mapping).
tool_use resolve_tool(api_kind api, const reply_spec& spec, const request_view& req);

// The usage of an answer as the request log gives it: the dispatcher
// record's field names, only the fields the API's wire carries (the
// Messages API has no reasoning count; Chat Completions one only when it is
// above 0).
json told_usage(api_kind api, const usage_figures& u);

// Per API: the SSE frames of a complete answer, the non-streaming body of
// the same answer, the frames of a stream that fails after `partial`, and
// the error body of an HTTP error carrying `error`.
std::vector<std::string> responses_stream(const answer& a, const request_view& req);
json responses_message(const answer& a, const request_view& req);
std::vector<std::string> responses_failed(const answer& partial, const json& error,
                                          const request_view& req);
json responses_error_body(const json& error);

std::vector<std::string> messages_stream(const answer& a, const request_view& req);
json messages_message(const answer& a, const request_view& req);
std::vector<std::string> messages_failed(const answer& partial, const json& error,
                                         const request_view& req);
json messages_error_body(const json& error);

std::vector<std::string> chat_stream(const answer& a, const request_view& req);
json chat_message(const answer& a, const request_view& req);
std::vector<std::string> chat_failed(const answer& partial, const json& error,
                                     const request_view& req);
json chat_error_body(const json& error);

} // namespace ad::mock_provider
