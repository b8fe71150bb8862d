#pragma once
// The mock provider's script: an ordered list of replies for successive
// counted model requests, the reply used once the list is exhausted (`then`),
// and the reply for requests the script does not count (`uncounted`). Which
// requests count is the script's `count` rule: every model request, or only
// those that offer tools (claude's and pi's side requests offer none). The
// format is documented in tools/mock-provider/README.md.
// Pure data and parsing; no I/O except load_script_file, never throws.
// Parsing is strict: an unknown key, kind or value is refused with an
// invalid_argument status whose message starts with the JSON pointer of the
// bad value (`/responses/2/kind: unknown kind "explode"`).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/status.hpp"

namespace ad::mock_provider {

// Objects keep the order they are written in, so frames read like the
// providers' own (type first) and script arguments keep their order.
using json = nlohmann::ordered_json;

// Compact JSON; invalid UTF-8 becomes U+FFFD instead of throwing.
std::string dump(const json& value, int indent = -1);

enum class reply_kind : uint8_t {
  text,         // a final assistant answer
  tool_call,    // one call of a tool named on the wire, with its arguments
  shell,        // a shell command through the CLI's own shell tool
  write_file,   // a file write through the CLI's own write tool
  http_error,   // an HTTP error status, headers and body
  stream_error, // HTTP 200, then an error event inside the stream
  stream_cut,   // HTTP 200, some events, then the connection closes
  drop,         // the request is read, then the connection closes unanswered
};

// How a cut stream or a dropped request ends: a FIN in the middle of the
// HTTP body (the peer reads EOF), a TCP reset, or (stream_cut only) a body
// that ends properly, early, before the connection closes.
enum class close_mode : uint8_t { fin, reset, end };

enum class count_rule : uint8_t { tools, all };

// The usage an answered request reports, in the API-neutral meaning of the
// dispatcher's usage record: input neither read from nor written to the
// cache, output (reasoning included), cache reads, cache writes, and of the
// output the reasoning. Each API writes it in its own fields (README.md);
// an unset field takes the API's default (responses 1,200 input / 40
// output, messages 321 / 12, chat 1,234 / 56, no cache, no reasoning).
struct usage_spec {
  std::optional<long long> input, output, cache_read, cache_write, reasoning;
};

struct reply_spec {
  reply_kind kind = reply_kind::text;
  std::string text;     // text; the text before a tool call, error or cut
  std::string thinking; // reasoning streamed before the content, if any
  std::string tool;     // tool_call: the tool's wire name
  json arguments = json::object(); // tool_call
  std::string command;  // shell
  std::string path;     // write_file (relative paths resolve against the CLI's cwd)
  std::string content;  // write_file
  int status = 0;       // http_error; stream_error: the status a non-streaming request gets
  std::vector<std::pair<std::string, std::string>> headers; // sent with any HTTP reply
  json body;            // http_error: a JSON value, or a string sent as text/plain
  json error = json::object(); // stream_error: the provider's error object
  int after_events = 0; // stream_cut: events written before the cut
  int hold_ms = 0;      // stream_cut: silence after those events, before the cut
  close_mode close = close_mode::fin; // stream_cut, drop
  int deltas = 3;       // how many deltas each streamed text is split into
  int delay_ms = 0;     // wait before answering
  usage_spec usage;     // what an answer reports: the reply's own, else the script's
};

struct script {
  count_rule count = count_rule::tools;
  usage_spec usage; // the script's "usage", already given to every reply below
  std::vector<reply_spec> responses; // `repeat` already expanded
  reply_spec then;
  reply_spec uncounted;
};

// The reply names used in the request log: "text", "http_error", ...
const char* to_string(reply_kind kind);

// Parses a script document. The defaults: count "tools", no responses, then
// and uncounted a text answer ("Done." and "OK").
runtime::result<script> parse_script(const json& doc);

// Reads and parses a script file; errors name the file.
runtime::result<script> load_script_file(const std::filesystem::path& path);

// The reply for the counted request with 0-based index `index`.
const reply_spec& counted_reply(const script& s, std::size_t index);

} // namespace ad::mock_provider
