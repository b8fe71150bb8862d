#include "runtime/agents/cli_outcome.hpp"

#include <cctype>

#include "runtime/agents/json_fields.hpp"

namespace ad::runtime {

namespace {

using agent_json::integer;
using agent_json::member;
using agent_json::parse_object_line;
using agent_json::str;
using agent_json::truthy;

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// "429 Rate limit reached ..." (pi's errorMessage and others): "http 429".
std::string http_status_code(std::string_view message) {
  if (message.size() < 4 || message[3] != ' ')
    return {};
  for (size_t i = 0; i < 3; ++i)
    if (!std::isdigit(static_cast<unsigned char>(message[i])))
      return {};
  if (message[0] < '1' || message[0] > '5')
    return {};
  return "http " + std::string(message.substr(0, 3));
}

// The text of the first text block of a claude message.
std::string claude_message_text(const json& event) {
  const json* message = member(event, "message");
  const json* content = message ? member(*message, "content") : nullptr;
  if (content == nullptr)
    return {};
  if (content->is_string())
    return content->get<std::string>();
  if (content->is_array())
    for (const auto& block : *content)
      if (str(block, "type") == "text")
        return std::string(str(block, "text"));
  return {};
}

// A claude result's most specific typed code.
std::string claude_result_code(const json& event) {
  std::string_view reason = str(event, "terminal_reason");
  if (!reason.empty() && reason != "api_error" && reason != "completed")
    return std::string(reason);
  if (std::string_view e = str(event, "api_error"); !e.empty())
    return std::string(e);
  if (std::string_view t = str(event, "api_error_type"); !t.empty())
    return std::string(t);
  if (auto status = integer(event, "api_error_status"))
    return "http " + std::to_string(*status);
  std::string_view subtype = str(event, "subtype");
  if (starts_with(subtype, "error"))
    return std::string(subtype);
  return {};
}

millis epoch_value_to_millis(int64_t v) {
  return v < 100'000'000'000 ? v * 1000 : v; // seconds below year ~5138
}

// "http 429" -> 429, else 0.
int status_of(std::string_view code) {
  size_t space = code.rfind(' ');
  if (space == std::string_view::npos)
    return 0;
  int value = 0;
  for (char c : code.substr(space + 1)) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return 0;
    value = value * 10 + (c - '0');
  }
  return value;
}

} // namespace

std::string_view to_string(cli_end end) {
  switch (end) {
    case cli_end::succeeded:
      return "succeeded";
    case cli_end::failed:
      return "failed";
    case cli_end::unknown:
      break;
  }
  return "unknown";
}

void cli_outcome_tracker::on_event(const json& event) {
  if (!event.is_object())
    return;
  outcome_.printed_events = true;
  switch (kind_) {
    case adapter_kind::codex:
      codex(event);
      break;
    case adapter_kind::claude:
      claude(event);
      break;
    case adapter_kind::pi:
      pi(event);
      break;
    case adapter_kind::agy:
    case adapter_kind::command:
      break;
  }
}

void cli_outcome_tracker::codex(const json& event) {
  std::string_view type = str(event, "type");
  if (type == "turn.completed") {
    outcome_.end = cli_end::succeeded;
    outcome_.failure = {};
  } else if (type == "turn.failed") {
    outcome_.end = cli_end::failed;
    const json* err = member(event, "error");
    std::string message = err && err->is_string() ? err->get<std::string>()
                          : err                   ? std::string(str(*err, "message"))
                                                  : std::string();
    outcome_.failure = {"codex:turn.failed", "", std::move(message)};
  } else if (type == "error" && starts_with(str(event, "message"), "Reconnecting...")) {
    ++outcome_.recovered_errors;
  }
}

void cli_outcome_tracker::claude(const json& event) {
  std::string_view type = str(event, "type");
  if (type == "result") {
    if (truthy(event, "is_error") || starts_with(str(event, "subtype"), "error")) {
      outcome_.end = cli_end::failed;
      std::string message(str(event, "result"));
      if (message.empty())
        message = std::string(str(event, "subtype"));
      outcome_.failure = {"claude:result", claude_result_code(event), std::move(message)};
    } else {
      outcome_.end = cli_end::succeeded;
      outcome_.failure = {};
    }
  } else if (type == "assistant") {
    // The CLI's own synthetic message about a failed request: model
    // "<synthetic>" and a typed `error`. A later result has the last word.
    std::string_view err = str(event, "error");
    if (!err.empty() && outcome_.end != cli_end::failed) {
      outcome_.end = cli_end::failed;
      outcome_.failure = {"claude:assistant", std::string(err), claude_message_text(event)};
    }
  } else if (type == "rate_limit_event") {
    const json* info = member(event, "rate_limit_info");
    if (info != nullptr && str(*info, "status") == "rejected")
      if (auto at = integer(*info, "resetsAt"); at && *at > 0)
        outcome_.reset_at = epoch_value_to_millis(*at);
  } else if (type == "system" && str(event, "subtype") == "api_retry") {
    ++outcome_.recovered_errors;
  }
}

void cli_outcome_tracker::pi(const json& event) {
  std::string_view type = str(event, "type");
  if (type == "message_end") {
    const json* message = member(event, "message");
    if (message == nullptr || str(*message, "role") != "assistant")
      return;
    std::string_view stop = str(*message, "stopReason");
    if (stop == "error" || stop == "aborted") {
      std::string text(str(*message, "errorMessage"));
      if (text.empty())
        text = std::string(stop);
      outcome_.end = cli_end::failed;
      outcome_.failure = {"pi:message_end", http_status_code(text), std::move(text)};
    } else if (!stop.empty()) {
      outcome_.end = cli_end::succeeded;
      outcome_.failure = {};
    }
  } else if (type == "auto_retry_start") {
    ++outcome_.recovered_errors;
    pi_retrying_ = true;
  } else if (type == "auto_retry_end") {
    pi_retrying_ = false;
    if (!truthy(event, "success")) {
      std::string text(str(event, "finalError"));
      outcome_.end = cli_end::failed;
      outcome_.failure = {"pi:auto_retry_end", http_status_code(text), std::move(text)};
    }
  }
}

code_meaning meaning_of_code(adapter_kind kind, std::string_view code) {
  if (code.empty())
    return {};
  int status = status_of(code);
  if (status == 429)
    return {"provider-quota", false};
  if (status == 503 || status == 529)
    return {"model-unavailable", false};
  if (kind == adapter_kind::codex) {
    if (code == "context_window_exceeded")
      return {"context-limit", false};
    if (code == "usage_limit_exceeded" || code == "rate_limit_exceeded"
        || code == "insufficient_quota")
      return {"provider-quota", false};
    if (code == "model_not_found" || code == "server_overloaded")
      return {"model-unavailable", false};
    return {};
  }
  if (kind == adapter_kind::claude) {
    if (code == "prompt_too_long")
      return {"context-limit", false};
    if (code == "usage_limit_reached" || code == "rate_limit_error" || code == "rate_limit")
      return {"provider-quota", false};
    if (code == "overloaded_error" || code == "not_found_error" || code == "model_not_found")
      return {"model-unavailable", false};
    // Both a refused connection and a stream the API dropped: the text
    // tells them apart.
    if (code == "connection_failed")
      return {"provider-connection", true};
    return {};
  }
  if (kind == adapter_kind::pi) {
    if (status == 404)
      return {"model-unavailable", true};
    return {};
  }
  return {};
}

std::optional<rollout_error> codex_rollout_error(const json& line) {
  if (str(line, "type") != "event_msg")
    return std::nullopt;
  const json* payload = member(line, "payload");
  if (payload == nullptr || str(*payload, "type") != "task_complete")
    return std::nullopt;
  const json* err = member(*payload, "error");
  if (err == nullptr || !err->is_object())
    return std::nullopt;
  rollout_error out;
  out.message = std::string(str(*err, "message"));
  if (const json* info = member(*err, "codex_error_info")) {
    if (info->is_string()) {
      out.code = info->get<std::string>();
    } else if (info->is_object() && !info->empty()) {
      out.code = info->begin().key();
      if (auto status = integer(info->begin().value(), "http_status_code"))
        out.code += " " + std::to_string(*status);
    }
  }
  return out;
}

std::optional<rollout_error> last_codex_rollout_error(std::string_view rollout_text) {
  std::optional<rollout_error> last;
  size_t start = 0;
  while (start < rollout_text.size()) {
    size_t nl = rollout_text.find('\n', start);
    size_t end = nl == std::string_view::npos ? rollout_text.size() : nl;
    std::string_view line = rollout_text.substr(start, end - start);
    start = end + 1;
    if (!contains(line, "task_complete"))
      continue;
    if (auto event = parse_object_line(line))
      if (auto e = codex_rollout_error(*event))
        last = std::move(e);
  }
  return last;
}

std::optional<launch_refusal> detect_launch_refusal(adapter_kind kind,
                                                    std::string_view stderr_line) {
  std::string_view line = stderr_line;
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n' || line.back() == ' '))
    line.remove_suffix(1);
  bool refused = false;
  if (kind == adapter_kind::claude && contains(line, "cannot be used with root/sudo privileges"))
    refused = true;
  for (std::string_view marker : {"Unknown option", "unknown option", "Unrecognized option",
                                  "unrecognized option", "error: unexpected argument",
                                  "error: unrecognized subcommand"})
    if (contains(line, marker))
      refused = true;
  if (!refused)
    return std::nullopt;
  return launch_refusal{std::string(line), launch_refusal_fix(to_string(kind), line)};
}

std::string launch_refusal_fix(std::string_view cli, std::string_view line) {
  if (contains(line, "root/sudo privileges"))
    return "claude refuses --dangerously-skip-permissions when run as root: run agent-dispatch "
           "as an ordinary user, or, if this machine is a disposable sandbox, set \"env\": "
           "{\"IS_SANDBOX\": \"1\"} on the claude targets in the policy";
  return "the installed " + std::string(cli)
         + " does not accept the command line agent-dispatch built for it; run `agent-dispatch "
           "doctor` to see the version and options it detected, and update the CLI or the "
           "policy";
}

} // namespace ad::runtime
