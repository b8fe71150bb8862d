#include "runtime/agents/stream_render.hpp"

#include "runtime/agents/json_fields.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/text.hpp"

namespace ad::runtime {

namespace {

using agent_json::integer;
using agent_json::member;
using agent_json::parse_object_line;
using agent_json::str;
using agent_json::truthy;

// Cuts at max_rendered_chars without splitting a UTF-8 sequence.
std::string clip(std::string_view text, size_t limit = max_rendered_chars) {
  if (text.size() <= limit)
    return std::string(text);
  size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;
  return std::string(text.substr(0, cut)) + "…";
}

// First line of text, clipped; for one-line summaries of long values.
std::string first_line(std::string_view text, size_t limit = 200) {
  auto nl = text.find('\n');
  std::string out = clip(strip_cr(text.substr(0, nl)), limit);
  if (nl != std::string_view::npos && nl + 1 < text.size())
    out += " …";
  return out;
}

void append_text(std::vector<std::string>& out, std::string_view text,
                 std::string_view prefix = {}) {
  if (text.empty())
    return;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view piece = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
    out.push_back(std::string(prefix) + clip(strip_cr(piece)));
    if (nl == std::string_view::npos)
      break;
    start = nl + 1;
  }
}

rendered_lines passthrough(std::string_view line) {
  rendered_lines r;
  r.lines.push_back(clip(strip_cr(line)));
  return r;
}

void discover(rendered_lines& r, render_state& state, std::string_view id) {
  if (id.empty() || id == state.session_id)
    return;
  state.session_id = std::string(id);
  r.discovered_session_id = state.session_id;
}

// A short description of a tool's input: the command, path or query when
// there is one, otherwise compact JSON.
std::string tool_input_summary(const json* input) {
  if (input == nullptr || input->is_null())
    return {};
  for (std::string_view key : {"command", "file_path", "path", "pattern", "query", "url"}) {
    std::string_view v = str(*input, key);
    if (!v.empty())
      return first_line(v);
  }
  return first_line(dump_json(*input));
}

// Text of a tool result content that is a string or a list of text blocks.
std::string content_text(const json* content) {
  if (content == nullptr)
    return {};
  if (content->is_string())
    return content->get<std::string>();
  std::string out;
  if (content->is_array()) {
    for (const auto& block : *content) {
      std::string_view t = str(block, "text");
      if (!t.empty()) {
        if (!out.empty())
          out += '\n';
        out += t;
      }
    }
  }
  return out;
}

// ---- codex ---------------------------------------------------------------

void render_codex_item(const json& event, std::string_view type, rendered_lines& r) {
  const json* item = member(event, "item");
  if (item == nullptr || !item->is_object())
    return;
  std::string_view item_type = str(*item, "type");
  bool started = type == "item.started";
  bool completed = type == "item.completed";
  if (item_type == "agent_message" && completed) {
    append_text(r.lines, str(*item, "text"));
  } else if (item_type == "reasoning" && completed) {
    std::string_view text = str(*item, "text");
    if (!text.empty())
      r.lines.push_back("thinking: " + first_line(text));
  } else if (item_type == "command_execution") {
    if (started) {
      r.lines.push_back("$ " + first_line(str(*item, "command"), max_rendered_chars));
    } else if (completed) {
      auto code = integer(*item, "exit_code");
      r.lines.push_back("  exit=" + (code ? std::to_string(*code) : std::string("?")));
    }
  } else if (item_type == "file_change" && completed) {
    const json* changes = member(*item, "changes");
    if (changes != nullptr && changes->is_array())
      for (const auto& change : *changes)
        r.lines.push_back("edit: " + std::string(str(change, "kind")) + " "
                          + std::string(str(change, "path")));
  } else if (item_type == "mcp_tool_call" && started) {
    r.lines.push_back("mcp: " + std::string(str(*item, "server")) + " "
                      + std::string(str(*item, "tool")));
  } else if (item_type == "web_search" && started) {
    r.lines.push_back("search: " + first_line(str(*item, "query")));
  } else if (item_type == "collab_tool_call" && started) {
    r.lines.push_back("collaboration tool: " + std::string(str(*item, "tool")));
  } else if (item_type == "todo_list" && (started || completed)) {
    const json* items = member(*item, "items");
    if (items != nullptr && items->is_array())
      for (const auto& todo : *items)
        r.lines.push_back(std::string(truthy(todo, "completed") ? "todo [x] " : "todo [ ] ")
                          + first_line(str(todo, "text")));
  } else if (item_type == "error") {
    r.lines.push_back("error: " + clip(str(*item, "message")));
  }
}

std::string error_message(const json& event) {
  const json* err = member(event, "error");
  if (err != nullptr) {
    if (err->is_string())
      return clip(err->get<std::string>());
    std::string_view m = str(*err, "message");
    if (!m.empty())
      return clip(m);
    return clip(dump_json(*err));
  }
  std::string_view m = str(event, "message");
  return m.empty() ? clip(dump_json(event)) : clip(m);
}

// ---- claude ----------------------------------------------------------------

void render_claude_message(const json& event, bool assistant, render_state& state,
                           rendered_lines& r) {
  const json* message = member(event, "message");
  const json* content = message ? member(*message, "content") : nullptr;
  if (content == nullptr)
    return;
  if (content->is_string() && assistant) {
    append_text(r.lines, content->get_ref<const std::string&>());
    state.last_assistant_text = content->get<std::string>();
    return;
  }
  if (!content->is_array())
    return;
  for (const auto& block : *content) {
    std::string_view type = str(block, "type");
    if (assistant && type == "text") {
      std::string_view text = str(block, "text");
      append_text(r.lines, text);
      state.last_assistant_text = std::string(text);
    } else if (assistant && type == "thinking") {
      std::string_view text = str(block, "thinking");
      if (!text.empty())
        r.lines.push_back("thinking: " + first_line(text));
    } else if (assistant && type == "tool_use") {
      std::string summary = tool_input_summary(member(block, "input"));
      r.lines.push_back("tool: " + std::string(str(block, "name"))
                        + (summary.empty() ? "" : " " + summary));
    } else if (!assistant && type == "tool_result" && truthy(block, "is_error")) {
      r.lines.push_back("tool error: " + first_line(content_text(member(block, "content")), 400));
    }
  }
}

void render_claude_result(const json& event, render_state& state, rendered_lines& r) {
  std::string_view text = str(event, "result");
  if (!text.empty() && text != state.last_assistant_text)
    append_text(r.lines, text);
  std::string summary = "result: " + std::string(str(event, "subtype"));
  if (truthy(event, "is_error"))
    summary += " (error)";
  if (auto turns = integer(event, "num_turns"))
    summary += " turns=" + std::to_string(*turns);
  if (auto ms = integer(event, "duration_ms"))
    summary += " duration_ms=" + std::to_string(*ms);
  r.lines.push_back(std::move(summary));
}

void render_claude_rate_limit(const json& event, rendered_lines& r) {
  const json* info = member(event, "rate_limit_info");
  if (info == nullptr)
    return;
  std::string_view st = str(*info, "status");
  if (st != "rejected" && st != "allowed_warning")
    return;
  std::string line = "rate limit " + std::string(st);
  std::string_view type = str(*info, "rateLimitType");
  if (!type.empty())
    line += " (" + std::string(type) + ")";
  if (auto resets = integer(*info, "resetsAt"))
    line += ", resets at " + format_utc_iso(*resets * 1000);
  r.lines.push_back(std::move(line));
}

// ---- pi --------------------------------------------------------------------

void render_pi_assistant(const json& message, render_state& state, rendered_lines& r) {
  const json* content = member(message, "content");
  if (content != nullptr && content->is_array()) {
    for (const auto& block : *content) {
      std::string_view type = str(block, "type");
      if (type == "text") {
        std::string_view text = str(block, "text");
        append_text(r.lines, text);
        state.last_assistant_text = std::string(text);
      } else if (type == "toolCall") {
        std::string summary = tool_input_summary(member(block, "arguments"));
        r.lines.push_back("tool: " + std::string(str(block, "name"))
                          + (summary.empty() ? "" : " " + summary));
      }
    }
  }
  if (str(message, "stopReason") == "error" || str(message, "stopReason") == "aborted") {
    std::string_view err = str(message, "errorMessage");
    r.lines.push_back("error: " + (err.empty() ? std::string(str(message, "stopReason"))
                                               : clip(err)));
  }
}

} // namespace

static rendered_lines render_codex_event(std::string_view line, const json* event,
                                         render_state& state) {
  ++state.lines_seen;
  if (event == nullptr)
    return passthrough(line);
  rendered_lines r;
  std::string_view type = str(*event, "type");
  if (type == "thread.started") {
    std::string_view id = str(*event, "thread_id");
    if (!id.empty())
      r.lines.push_back("session " + std::string(id));
    discover(r, state, id);
  } else if (type == "item.started" || type == "item.completed") {
    render_codex_item(*event, type, r);
  } else if (type == "turn.completed") {
    const json* usage = member(*event, "usage");
    std::string line_out = "turn completed";
    if (usage != nullptr) {
      if (auto in = integer(*usage, "input_tokens"))
        line_out += " input_tokens=" + std::to_string(*in);
      if (auto out = integer(*usage, "output_tokens"))
        line_out += " output_tokens=" + std::to_string(*out);
    }
    r.lines.push_back(std::move(line_out));
  } else if (type == "turn.failed") {
    r.lines.push_back("turn failed: " + error_message(*event));
  } else if (type == "error") {
    r.lines.push_back("error: " + error_message(*event));
  }
  return r;
}

static rendered_lines render_claude_event(std::string_view line, const json* event,
                                         render_state& state) {
  ++state.lines_seen;
  if (event == nullptr)
    return passthrough(line);
  rendered_lines r;
  std::string_view type = str(*event, "type");
  std::string_view subtype = str(*event, "subtype");
  if (type == "system" && subtype == "init") {
    r.lines.push_back("session " + std::string(str(*event, "session_id")) + " model "
                      + std::string(str(*event, "model")));
  } else if (type == "system" && subtype.substr(0, 5) == "error") {
    r.lines.push_back("system error: " + error_message(*event));
  } else if (type == "system" && subtype == "api_retry") {
    auto attempt = integer(*event, "attempt");
    auto max = integer(*event, "max_retries");
    auto status = integer(*event, "error_status");
    auto delay = integer(*event, "retry_delay_ms");
    std::string line_out = "api retry " + (attempt ? std::to_string(*attempt) : std::string("?"))
                           + "/" + (max ? std::to_string(*max) : std::string("?")) + ": "
                           + std::string(str(*event, "error"));
    if (status)
      line_out += " (status " + std::to_string(*status) + ")";
    if (delay)
      line_out += ", next in " + std::to_string(*delay) + " ms";
    r.lines.push_back(std::move(line_out));
  } else if (type == "assistant") {
    render_claude_message(*event, true, state, r);
  } else if (type == "user") {
    render_claude_message(*event, false, state, r);
  } else if (type == "result") {
    render_claude_result(*event, state, r);
  } else if (type == "rate_limit_event") {
    render_claude_rate_limit(*event, r);
  }
  discover(r, state, str(*event, "session_id"));
  return r;
}

static rendered_lines render_agy_event(std::string_view line, const json* event,
                                         render_state& state) {
  ++state.lines_seen;
  if (event == nullptr)
    return passthrough(line);
  rendered_lines r;
  std::string_view type = str(*event, "type");
  for (std::string_view key : {"text", "message", "content", "error"}) {
    const json* v = member(*event, key);
    if (v == nullptr)
      continue;
    std::string text = v->is_string() ? v->get<std::string>() : error_message(*event);
    if (type.empty())
      append_text(r.lines, text);
    else
      append_text(r.lines, text, std::string(type) + ": ");
    return r;
  }
  if (!type.empty())
    r.lines.push_back(std::string(type));
  return r;
}

static rendered_lines render_pi_event(std::string_view line, const json* event,
                                         render_state& state) {
  ++state.lines_seen;
  if (event == nullptr)
    return passthrough(line);
  rendered_lines r;
  std::string_view type = str(*event, "type");
  if (type == "session") {
    std::string_view id = str(*event, "id");
    if (!id.empty())
      r.lines.push_back("session " + std::string(id));
    discover(r, state, id);
  } else if (type == "message_end") {
    const json* message = member(*event, "message");
    if (message != nullptr && str(*message, "role") == "assistant")
      render_pi_assistant(*message, state, r);
  } else if (type == "tool_execution_end") {
    if (truthy(*event, "isError"))
      r.lines.push_back("tool error: " + std::string(str(*event, "toolName")));
  } else if (type == "auto_retry_start") {
    auto attempt = integer(*event, "attempt");
    auto max = integer(*event, "maxAttempts");
    r.lines.push_back("retry " + (attempt ? std::to_string(*attempt) : std::string("?")) + "/"
                      + (max ? std::to_string(*max) : std::string("?")) + ": "
                      + clip(str(*event, "errorMessage")));
  } else if (type == "auto_retry_end") {
    if (truthy(*event, "success"))
      r.lines.push_back("retry succeeded");
    else
      r.lines.push_back("retries exhausted: " + clip(str(*event, "finalError")));
  } else if (type == "compaction_start" || type == "auto_compaction_start") {
    std::string_view reason = str(*event, "reason");
    r.lines.push_back("compacting context" +
                      (reason.empty() ? std::string() : " (" + std::string(reason) + ")"));
  } else if (type == "compaction_end" || type == "auto_compaction_end") {
    if (truthy(*event, "aborted"))
      r.lines.push_back("compaction aborted");
    else if (const json* result = member(*event, "result"); result && result->is_object())
      r.lines.push_back("context compacted");
    else
      r.lines.push_back("compaction failed: " + clip(str(*event, "errorMessage")));
  }
  return r;
}

rendered_lines render_command_line(std::string_view line, render_state& state) {
  ++state.lines_seen;
  return passthrough(line);
}

rendered_lines render_codex_line(std::string_view line, render_state& state) {
  auto event = parse_object_line(line);
  return render_codex_event(line, event ? &*event : nullptr, state);
}

rendered_lines render_claude_line(std::string_view line, render_state& state) {
  auto event = parse_object_line(line);
  return render_claude_event(line, event ? &*event : nullptr, state);
}

rendered_lines render_agy_line(std::string_view line, render_state& state) {
  auto event = parse_object_line(line);
  return render_agy_event(line, event ? &*event : nullptr, state);
}

rendered_lines render_pi_line(std::string_view line, render_state& state) {
  auto event = parse_object_line(line);
  return render_pi_event(line, event ? &*event : nullptr, state);
}

rendered_lines render_event(adapter_kind kind, output_channel channel, std::string_view line,
                            const json* event, render_state& state) {
  if (channel == output_channel::err) {
    ++state.lines_seen;
    rendered_lines r;
    r.lines.push_back("[stderr] " + clip(strip_cr(line)));
    return r;
  }
  switch (kind) {
    case adapter_kind::codex:
      return render_codex_event(line, event, state);
    case adapter_kind::claude:
      return render_claude_event(line, event, state);
    case adapter_kind::agy:
      return render_agy_event(line, event, state);
    case adapter_kind::pi:
      return render_pi_event(line, event, state);
    case adapter_kind::command:
      break;
  }
  return render_command_line(line, state);
}

rendered_lines render_stream_line(adapter_kind kind, output_channel channel,
                                  std::string_view line, render_state& state) {
  std::optional<json> event;
  if (channel == output_channel::out && kind != adapter_kind::command)
    event = parse_object_line(line);
  return render_event(kind, channel, line, event ? &*event : nullptr, state);
}

} // namespace ad::runtime
