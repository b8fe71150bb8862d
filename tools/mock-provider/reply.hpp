#pragma once
// What the mock provider sends for one request, as a plain value the wire
// renderers build and the server carries out: a whole body, a stream of SSE
// frames (possibly cut after some of them), or no answer at all. Also the
// small helpers the renderers share. Pure; never throws except bad_alloc.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/mock-provider/script.hpp"

namespace ad::mock_provider {

enum class reply_shape : uint8_t { body, stream, drop };

struct http_reply {
  reply_shape shape = reply_shape::body;
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type = "application/json";
  std::string body;                // shape body
  std::vector<std::string> events; // shape stream: complete SSE frames
  int cut_after = -1;              // stream: close after this many frames (-1: end normally)
  int hold_ms = 0;                 // stream cut: silence before the close
  close_mode close = close_mode::fin; // stream cut or drop
  int delay_ms = 0;
  // The usage the reply reports when the client gets all of it (an
  // answer: wire.hpp told_usage's form); null for an error.
  json answer_usage;
};

// The usage of the request when the reply answers it in full: the answer's,
// or null for an error, a dropped request and a stream (or body) cut before
// its end.
json served_usage(const http_reply& r);

// "event: <name>\ndata: <json>\n\n"; without a name only the data line.
std::string sse_frame(std::string_view name, const json& data);

// Splits text into at most `parts` pieces of about equal length, never
// inside a UTF-8 sequence; an empty text gives no pieces.
std::vector<std::string> split_deltas(std::string_view text, int parts);

// A reply with status, the script's headers and a body: a JSON value is sent
// as application/json, a string as text/plain.
http_reply body_reply(const reply_spec& spec, int status, const json& body);

// The connection is dropped as the spec says (kind drop, or a cut stream
// asked for without streaming).
http_reply drop_reply(const reply_spec& spec);

} // namespace ad::mock_provider
