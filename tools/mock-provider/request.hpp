#pragma once
// What the mock provider reads from one model request: the API it came in on,
// the parsed body, whether it asks for a stream, which tools it offers and the
// CLI's working directory as its prompt states it. Also the placeholder
// expansion scripts use in their strings (${now}, ${now+N}, ${now-N}, ${cwd},
// ${model}). Pure functions over values; never throws, no I/O.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/mock-provider/script.hpp"

namespace ad::mock_provider {

enum class api_kind : uint8_t {
  responses, // OpenAI Responses API, POST /v1/responses (codex)
  messages,  // Anthropic Messages API, POST /v1/messages (claude)
  chat,      // OpenAI Chat Completions, POST /v1/chat/completions (pi)
};

struct request_view {
  json body = json::object();          // the parsed body (an empty object if unparsable)
  bool parsed = false;                 // the body was a JSON object
  bool streaming = false;              // "stream": true
  std::vector<std::string> tool_names; // the tools offered, in request order
  std::string model;
  std::string cwd;                     // "" when the prompt names none
  std::size_t seq = 0;                 // 0-based number of this model request, for ids
  long long now = 0;                   // Unix seconds at arrival
};

// Builds the view of a request body that arrived on `api`.
request_view read_request(api_kind api, std::string_view body, std::size_t seq, long long now);

// Replaces the placeholders in text; unknown ${...} are left as they are.
std::string expand(std::string_view text, const request_view& req);

// expand() applied to every string inside a JSON value (keys untouched); a
// string that is nothing but a ${now...} placeholder becomes a number.
json expand_json(const json& value, const request_view& req);

// The reply with expand() applied to all its strings and header values.
reply_spec expand_reply(const reply_spec& reply, const request_view& req);

} // namespace ad::mock_provider
