#include "runtime/agents/progress_watch.hpp"

#include "runtime/agents/cli_outcome.hpp"
#include "runtime/agents/json_fields.hpp"

namespace ad::runtime {

namespace {

using agent_json::integer;
using agent_json::str;

constexpr std::string_view network_wait_prefix = "Reconnecting... waiting for network";
constexpr std::string_view reconnecting_prefix = "Reconnecting... ";

// The class a retried error means: its typed code, else the patterns, else
// a connection problem (a retry is always about reaching the provider).
std::string class_of_retry(adapter_kind kind, const std::string& code, const std::string& text,
                           const compiled_failure_patterns& table) {
  auto meaning = meaning_of_code(kind, code);
  if (!meaning.failure_class.empty() && !meaning.patterns_first)
    return meaning.failure_class;
  if (auto m = table.match(text))
    return m->failure_class;
  if (!meaning.failure_class.empty())
    return meaning.failure_class;
  return "provider-connection";
}

std::string seconds(int64_t ms) {
  return std::to_string(ms / 1000) + " s";
}

} // namespace

std::optional<no_progress_stop> progress_watch::check(streak& s, int64_t limit, int64_t at,
                                                      std::string failure_class,
                                                      std::string origin) {
  if (limit <= 0 || stopped_ || at - s.since < limit)
    return std::nullopt;
  stopped_ = true;
  no_progress_stop stop;
  stop.failure_class = std::move(failure_class);
  stop.origin = std::move(origin);
  stop.evidence = "no progress for " + seconds(at - s.since) + " (" + std::to_string(s.count)
                  + " retries): " + s.last;
  return stop;
}

std::optional<no_progress_stop> progress_watch::on_event(const json& event, int64_t at,
                                                         const compiled_failure_patterns& table) {
  if (stopped_ || !event.is_object())
    return std::nullopt;
  std::string_view type = str(event, "type");
  auto note = [&](streak& s, std::string text) {
    if (s.since < 0)
      s.since = at;
    ++s.count;
    s.last = std::move(text);
  };
  int64_t retry_limit = settings_.failover_available ? settings_.retrying_ms : 0;

  if (kind_ == adapter_kind::codex && type == "error") {
    std::string message(str(event, "message"));
    if (message.starts_with(network_wait_prefix)) {
      retrying_ = {};
      note(network_, message);
      return check(network_, settings_.network_wait_ms, at, "provider-connection",
                   "codex:network-wait");
    }
    if (message.starts_with(reconnecting_prefix)) {
      network_ = {};
      note(retrying_, message);
      // "Reconnecting... 2/5 (<error>)": the error inside the parentheses.
      std::string inner = message;
      if (auto open = message.find('('); open != std::string::npos && message.back() == ')')
        inner = message.substr(open + 1, message.size() - open - 2);
      return check(retrying_, retry_limit, at, class_of_retry(kind_, "", inner, table),
                   "codex:retry");
    }
    return std::nullopt; // a final error: the turn's end decides
  }
  if (kind_ == adapter_kind::claude && type == "system" && str(event, "subtype") == "api_retry") {
    std::string error(str(event, "error"));
    auto status = integer(event, "error_status");
    std::string code = status ? "http " + std::to_string(*status) : error;
    if (error == "rate_limit")
      code = "rate_limit";
    auto attempt = integer(event, "attempt");
    auto max = integer(event, "max_retries");
    note(retrying_, "claude retried the API request (error " + (error.empty() ? "?" : error)
                      + (status ? ", status " + std::to_string(*status) : std::string())
                      + ", attempt " + (attempt ? std::to_string(*attempt) : "?") + " of "
                      + (max ? std::to_string(*max) : "?") + ")");
    std::string failure_class = error == "overloaded" ? "model-unavailable"
                                                      : class_of_retry(kind_, code, error, table);
    return check(retrying_, retry_limit, at, failure_class, "claude:api_retry");
  }
  if (kind_ == adapter_kind::pi && type == "auto_retry_start") {
    std::string message(str(event, "errorMessage"));
    std::string code;
    if (message.size() > 3 && message[3] == ' ')
      code = "http " + message.substr(0, 3);
    note(retrying_, "pi retried: " + message);
    return check(retrying_, retry_limit, at, class_of_retry(kind_, code, message, table),
                 "pi:auto_retry");
  }
  if (kind_ == adapter_kind::pi && type == "auto_retry_end")
    return std::nullopt;
  if (kind_ == adapter_kind::codex || kind_ == adapter_kind::claude
      || kind_ == adapter_kind::pi) {
    // Anything else the CLI prints is progress, except pi's per-attempt
    // bookkeeping around a retry.
    if (kind_ == adapter_kind::pi
        && (type == "agent_start" || type == "agent_end" || type == "turn_start"
            || type == "turn_end" || type == "message_start"))
      return std::nullopt;
    if (kind_ == adapter_kind::pi && type == "message_end") {
      const json* message = agent_json::member(event, "message");
      if (message != nullptr && str(*message, "stopReason") == "error")
        return std::nullopt;
    }
    network_ = {};
    retrying_ = {};
  }
  return std::nullopt;
}

} // namespace ad::runtime
