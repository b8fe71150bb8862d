#include "tools/mock-provider/wire.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace ad::mock_provider {
namespace {

bool offers(const request_view& req, std::string_view name) {
  return std::find(req.tool_names.begin(), req.tool_names.end(), name) != req.tool_names.end();
}

// A single-quoted shell word.
std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  out += '\'';
  return out;
}

tool_use codex_shell(const std::string& command, const request_view& req) {
  if (offers(req, "exec_command") || !offers(req, "shell"))
    return {"exec_command", json{{"cmd", command}}};
  return {"shell", json{{"command", json::array({"bash", "-lc", command})}}};
}

std::vector<std::string> frames(api_kind api, const answer& a, const request_view& req) {
  switch (api) {
  case api_kind::responses: return responses_stream(a, req);
  case api_kind::messages: return messages_stream(a, req);
  case api_kind::chat: return chat_stream(a, req);
  }
  return {};
}

json whole_message(api_kind api, const answer& a, const request_view& req) {
  switch (api) {
  case api_kind::responses: return responses_message(a, req);
  case api_kind::messages: return messages_message(a, req);
  case api_kind::chat: return chat_message(a, req);
  }
  return json::object();
}

std::vector<std::string> failed_frames(api_kind api, const answer& partial, const json& error,
                                       const request_view& req) {
  switch (api) {
  case api_kind::responses: return responses_failed(partial, error, req);
  case api_kind::messages: return messages_failed(partial, error, req);
  case api_kind::chat: return chat_failed(partial, error, req);
  }
  return {};
}

json error_body(api_kind api, const json& error) {
  switch (api) {
  case api_kind::responses: return responses_error_body(error);
  case api_kind::messages: return messages_error_body(error);
  case api_kind::chat: return chat_error_body(error);
  }
  return json::object();
}

json default_error(api_kind api) {
  if (api == api_kind::messages) return json{{"type", "api_error"}, {"message", "mock error"}};
  return json{{"message", "mock error"}, {"type", "server_error"}, {"code", nullptr}};
}

http_reply stream_reply(const reply_spec& spec, std::vector<std::string> events) {
  http_reply r;
  r.shape = reply_shape::stream;
  r.status = 200;
  r.headers = spec.headers;
  r.content_type = "text/event-stream";
  r.events = std::move(events);
  r.delay_ms = spec.delay_ms;
  return r;
}

bool has_header(const http_reply& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    (void)v;
    if (k.size() == name.size() &&
        std::equal(k.begin(), k.end(), name.begin(), [](char x, char y) {
          return std::tolower(static_cast<unsigned char>(x)) ==
                 std::tolower(static_cast<unsigned char>(y));
        }))
      return true;
  }
  return false;
}

// claude reports Anthropic's request-id header (the captures' mock sent one);
// codex quotes an x-request-id in its error texts, so the OpenAI APIs get
// one only when the script sets it.
void add_request_id(api_kind api, const request_view& req, http_reply& r) {
  const char* name = "request-id";
  if (api != api_kind::messages || has_header(r, name)) return;
  char id[40];
  std::snprintf(id, sizeof id, "req_mock_%020zx", req.seq + 1);
  r.headers.emplace_back(name, id);
}

} // namespace

usage_figures usage_for(api_kind api, const usage_spec& spec) {
  usage_figures u;
  switch (api) {
  case api_kind::responses: u.input = 1200, u.output = 40; break;
  case api_kind::messages: u.input = 321, u.output = 12; break;
  case api_kind::chat: u.input = 1234, u.output = 56; break;
  }
  u.input = spec.input.value_or(u.input);
  u.output = spec.output.value_or(u.output);
  u.cache_read = spec.cache_read.value_or(0);
  u.cache_write = spec.cache_write.value_or(0);
  u.reasoning = spec.reasoning.value_or(0);
  return u;
}

json told_usage(api_kind api, const usage_figures& u) {
  json told{{"input_tokens", u.input},
            {"output_tokens", u.output},
            {"cache_read_tokens", u.cache_read},
            {"cache_write_tokens", u.cache_write}};
  if (api == api_kind::responses || (api == api_kind::chat && u.reasoning > 0))
    told["reasoning_tokens"] = u.reasoning;
  return told;
}

tool_use resolve_tool(api_kind api, const reply_spec& spec, const request_view& req) {
  switch (spec.kind) {
  case reply_kind::shell:
    if (api == api_kind::responses) return codex_shell(spec.command, req);
    if (api == api_kind::messages)
      return {"Bash", json{{"command", spec.command}, {"description", "Run a shell command"}}};
    return {"bash", json{{"command", spec.command}}};
  case reply_kind::write_file: {
    if (api == api_kind::responses)
      return codex_shell("printf '%s' " + shell_quote(spec.content) + " > " +
                             shell_quote(spec.path),
                         req);
    if (api == api_kind::messages) {
      std::string path = spec.path;
      if (!path.empty() && path[0] != '/' && !req.cwd.empty()) path = req.cwd + "/" + path;
      return {"Write", json{{"file_path", path}, {"content", spec.content}}};
    }
    return {"write", json{{"path", spec.path}, {"content", spec.content}}};
  }
  default: return {spec.tool, spec.arguments};
  }
}

http_reply render_reply(api_kind api, const reply_spec& raw, const request_view& req) {
  const reply_spec spec = expand_reply(raw, req);
  http_reply out;
  answer a;
  a.thinking = spec.thinking;
  a.text = spec.text;
  a.deltas = spec.deltas;
  a.usage = usage_for(api, spec.usage);
  switch (spec.kind) {
  case reply_kind::tool_call:
  case reply_kind::shell:
  case reply_kind::write_file: a.call = resolve_tool(api, spec, req); [[fallthrough]];
  case reply_kind::text:
    out = req.streaming ? stream_reply(spec, frames(api, a, req))
                        : body_reply(spec, 200, whole_message(api, a, req));
    out.answer_usage = told_usage(api, a.usage);
    break;
  case reply_kind::http_error:
    out = body_reply(spec, spec.status,
                     spec.body.is_null() ? error_body(api, default_error(api)) : spec.body);
    break;
  case reply_kind::stream_error:
    if (req.streaming) {
      answer partial;
      partial.text = spec.text;
      partial.deltas = spec.deltas;
      partial.usage = a.usage;
      out = stream_reply(spec, failed_frames(api, partial, spec.error, req));
    } else {
      int status = spec.status ? spec.status : (api == api_kind::messages ? 529 : 500);
      out = body_reply(spec, status, error_body(api, spec.error));
    }
    break;
  case reply_kind::stream_cut:
    if (a.text.empty()) a.text = "Let me start by looking at the files in the workspace.";
    if (req.streaming) {
      out = stream_reply(spec, frames(api, a, req));
      out.answer_usage = told_usage(api, a.usage); // answered only when the cut comes after the end
      out.cut_after = spec.after_events;
    } else {
      // The non-streaming form is cut the same way: status, headers and the
      // first half of the JSON body (sent chunked), then the cut.
      auto body = dump(whole_message(api, a, req));
      out = stream_reply(spec, {body.substr(0, body.size() / 2)});
      out.content_type = "application/json";
      out.cut_after = 1;
    }
    out.hold_ms = spec.hold_ms;
    out.close = spec.close;
    break;
  case reply_kind::drop: out = drop_reply(spec); break;
  }
  if (out.shape != reply_shape::drop) add_request_id(api, req, out);
  return out;
}

} // namespace ad::mock_provider
