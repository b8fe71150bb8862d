// claude `-p --output-format stream-json --verbose` as Claude Code 2.1.332
// prints it (tests/fixtures/realcli/claude): system/init, the messages, its
// system/api_retry lines (CLAUDE_CODE_MAX_RETRIES, default 10), the
// synthetic assistant message of a failed request, the subscriber's
// rejected rate_limit_event, the result, exit 1 on an error, and the
// transcript under the projects folder (runtime/agents/native_sessions.hpp
// names its folder).
#include <algorithm>
#include <cmath>

#include "runtime/agents/native_sessions.hpp"
#include "runtime/core/clock.hpp"
#include "tools/agent-sim/emitter_support.hpp"

namespace ad::agent_sim::detail {

namespace {

using runtime::millis;

constexpr const char* claude_version = "2.1.332";

// How claude ends a failed request: whether it retries it first (and what
// its api_retry lines say), the synthetic assistant message and the result.
struct claude_plan {
  bool retried = false;
  ojson retry_status = nullptr;     // api_retry error_status
  std::string retry_error;          // api_retry error
  double retry_after_s = 0;         // the provider's retry-after (a floor for each delay)
  std::string error;                // the synthetic message's `error`
  ojson status = nullptr;           // api_error_status (null: absent from the synthetic message)
  std::string type;                 // api_error_type ("" = absent)
  std::string api_error;            // api_error ("" = absent)
  std::string text;
  std::string terminal_reason = "api_error";
  bool usage_limit = false;         // a subscriber limit: rate_limit_event first
  bool api = true;                  // false: no synthetic message (a failure without a capture)
  bool cut = false;                 // each failed request was cut after its start (counted, see cut_request)
};

// claude retries a 429 whose retry-after is short; with a long one
// (rate_limit_429_retry_after_3600) it gives up at once.
constexpr double claude_longest_retry_after_s = 60;

std::string gateway(const cli_environment& env) {
  std::string url = env.anthropic_base_url;
  if (url.empty()) return "api.anthropic.com";
  auto scheme = url.find("://");
  if (scheme != std::string::npos) url = url.substr(scheme + 3);
  return url.substr(0, url.find('/'));
}

claude_plan claude_plan_for(const failure_report& f, const emit_context& ctx) {
  claude_plan p;
  switch (f.kind) {
    case failure_kind::rate_limit:
    case failure_kind::resource_exhausted:
      p.retry_after_s = retry_after_or(f, 2);
      p.retried = p.retry_after_s <= claude_longest_retry_after_s;
      p.retry_status = 429;
      p.retry_error = "rate_limit";
      p.error = "rate_limit";
      p.status = 429;
      p.type = "rate_limit_error";
      p.text = "API Error: Request rejected (429) \u00b7 This request would exceed the rate limit for your "
               "organization (" + ctx.ids->uuid() + ") of 30,000 input tokens per minute. For details, refer to: "
               "https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. "
               "Please reduce the prompt length or the maximum tokens requested, or try again later. You may "
               "also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate "
               "limit increase.";
      break;
    case failure_kind::quota_exceeded:
      // The rejected unified limit of an API key (rate_limit_429_unified).
      p.retry_after_s = retry_after_or(f, 3600);
      p.retried = p.retry_after_s <= claude_longest_retry_after_s;
      p.retry_status = 429;
      p.retry_error = "rate_limit";
      p.error = "rate_limit";
      p.status = 429;
      p.type = "rate_limit_error";
      p.text = "API Error: Request rejected (429) \u00b7 Error";
      break;
    case failure_kind::usage_limit:
      p.usage_limit = true;
      p.error = "rate_limit";
      p.status = 429;
      p.type = "rate_limit_error";
      p.api_error = "usage_limit_reached";
      p.text = "You've hit your 5-hour limit \u00b7 resets " +
               claude_reset_text(f.resets_at, ctx.env.zone, ctx.env.zone_name);
      break;
    case failure_kind::context_length:
      p.error = "invalid_request";
      p.status = 400;
      p.type = "invalid_request_error";
      p.terminal_reason = "prompt_too_long";
      p.text = "Prompt is too long \u00b7 the request is ~215345 tokens (limit 200000) but this conversation is "
               "only ~2550 tokens \u2014 the rest is system prompt, tool definitions, and attachment content. A "
               "single-exchange conversation cannot be compacted; reduce attached files/tools or start with less "
               "context.";
      break;
    case failure_kind::model_overloaded:
      p.retried = true;
      p.retry_status = 529;
      p.retry_error = "overloaded";
      p.error = "server_error";
      p.status = 529;
      p.type = "overloaded_error";
      p.text = "API Error: 529 Overloaded. This is a server-side issue, usually temporary \u2014 try again in a "
               "moment. If it persists, check your inference gateway (" + gateway(ctx.env) + ").";
      break;
    case failure_kind::model_unavailable:
      p.error = "model_not_found";
      p.status = 404;
      p.type = "not_found_error";
      p.text = "There's an issue with the selected model (" + ctx.inv.model +
               "). It may not exist or you may not have access to it. Run --model to pick a different model.";
      break;
    case failure_kind::connection_refused:
      p.retried = true;
      p.retry_error = "unknown";
      p.error = "server_error";
      p.api_error = "connection_failed";
      p.text = "API Error: Connection refused \u2014 a firewall or proxy may be blocking it (ECONNREFUSED)";
      break;
    case failure_kind::stream_disconnected:
      p.retried = true;
      p.retry_error = "unknown";
      p.error = "server_error";
      p.api_error = "connection_failed";
      p.text = "API Error: Connection to the API was lost (ECONNRESET). This is usually temporary \u2014 try again.";
      p.cut = true;
      break;
    case failure_kind::file_exists:
    case failure_kind::file_not_found:
    case failure_kind::error:
    case failure_kind::root_refusal:
      p.api = false;
      p.text = f.message;
      p.terminal_reason = "completed";
      break;
  }
  if (f.scripted_message) p.text = f.message;
  return p;
}

// The result's usage: the run's totals.
ojson usage_of(const runtime::token_usage& u) {
  return {{"input_tokens", u.input_tokens.value_or(0)},
          {"cache_creation_input_tokens", u.cache_write_tokens.value_or(0)},
          {"cache_read_input_tokens", u.cache_read_tokens.value_or(0)},
          {"output_tokens", u.output_tokens.value_or(0)},
          {"output_tokens_details", {{"thinking_tokens", u.reasoning_tokens.value_or(0)}}},
          {"server_tool_use", {{"web_search_requests", 0}, {"web_fetch_requests", 0}}},
          {"service_tier", "standard"},
          {"cache_creation", {{"ephemeral_1h_input_tokens", 0}, {"ephemeral_5m_input_tokens", 0}}},
          {"inference_geo", ""}, {"iterations", ojson::array()}, {"speed", "standard"}, {"fallback_credit", nullptr}};
}

// What the captures' mock served each claude request (claude-opus-4-8).
runtime::token_usage claude_request_usage() {
  runtime::token_usage u;
  u.input_tokens = 321;
  u.output_tokens = 12;
  u.cache_read_tokens = 0;
  u.cache_write_tokens = 0;
  u.reasoning_tokens = 0;
  return u;
}

// What claude charges for a request it did not get a scripted cost for: the
// list prices its captures' costs show for claude-opus-4-8 ($5 input, $25
// output, $0.50 cache reads, $6.25 cache writes per million tokens).
double claude_list_cost(const runtime::token_usage& u) {
  return (static_cast<double>(u.input_tokens.value_or(0)) * 5 + static_cast<double>(u.output_tokens.value_or(0)) * 25 +
          static_cast<double>(u.cache_read_tokens.value_or(0)) * 0.5 +
          static_cast<double>(u.cache_write_tokens.value_or(0)) * 6.25) /
         1e6;
}

class claude_emitter final : public emitter {
public:
  claude_emitter(const emit_context& c, std::ostream& o, std::ostream& e)
      : ctx_(c), out_(o), err_(e), session_(c.inv.session_id.empty() ? c.ids->uuid() : c.inv.session_id) {}

  void begin() override {
    start_ = ctx_.clock->now();
    if (!ctx_.env.claude_projects.empty()) {
      native_.open(runtime::claude_session_path(ctx_.env.claude_projects, ctx_.workspace, session_).string(),
                   write_errors_);
      std::string now = runtime::format_utc_iso(start_);
      native_.write(dump({{"type", "queue-operation"}, {"operation", "enqueue"}, {"timestamp", now},
                          {"sessionId", session_}, {"content", ctx_.inv.prompt}}));
      native_.write(dump({{"type", "queue-operation"}, {"operation", "dequeue"}, {"timestamp", now},
                          {"sessionId", session_}}));
      transcript("user", {{"role", "user"}, {"content", ctx_.inv.prompt}}, {});
    }
    emit(init_event());
  }

  void step(int index, const std::string& what) override {
    std::string tool = tool_use(what);
    std::string output = "step " + std::to_string(index) + " ok";
    ojson message{{"role", "user"}, {"content", {{{"tool_use_id", tool}, {"type", "tool_result"}, {"content", output}}}}};
    ojson event{{"type", "user"}, {"message", message}, {"parent_tool_use_id", nullptr}, {"session_id", session_},
                {"uuid", ctx_.ids->uuid()}, {"timestamp", runtime::format_utc_iso(ctx_.clock->now())},
                {"tool_use_result", {{"stdout", output}, {"stderr", ""}, {"interrupted", false},
                                     {"isImage", false}, {"noOutputExpected", false}}},
                {"tool_result_meta", {{{"id", tool}, {"permission_decision", {{"decision", "accept"},
                                                                               {"source", "config"},
                                                                               {"reason_type", "mode"}}}}}}};
    emit(event);
    transcript("user", message, {});
    ++turns_;
  }

  void tool_pending(const std::string& what) override { tool_use(what); }

  void retried(const failure_report& f, int times) override {
    claude_plan p = claude_plan_for(f, ctx_);
    if (!p.retried) return;
    for (int n = 1; n <= times && n <= ctx_.env.claude_max_retries; ++n) retry_line(p, n);
  }

  void success(const std::string& summary) override {
    assistant_text(summary, "end_turn");
    result(false, summary, "end_turn", "completed", nullptr, "", "", true);
  }

  int failure(const failure_report& f) override {
    claude_plan p = claude_plan_for(f, ctx_);
    if (p.retried)
      for (int n = 1; n <= ctx_.env.claude_max_retries; ++n)
        if (!retry_line(p, n)) return 1;
    if (p.cut) cut_request();
    if (!p.api) {
      assistant_text(p.text, "end_turn");
      result(true, p.text, "end_turn", p.terminal_reason, nullptr, "", "", true);
      return 1;
    }
    ojson limit_info;
    if (p.usage_limit) {
      limit_info = {{"status", "rejected"}, {"resetsAt", f.resets_at / 1000}, {"rateLimitType", "five_hour"},
                    {"overageStatus", "rejected"}, {"overageDisabledReason", "org_level_disabled"},
                    {"isUsingOverage", false}};
      ojson event_info = limit_info;
      event_info["unifiedWindows"] = {
          {"five_hour", {{"utilization", 1.02}, {"resetsAt", f.resets_at / 1000}, {"status", "rejected"}}},
          {"seven_day", {{"utilization", 0.41}, {"resetsAt", f.resets_at / 1000 + 396400}, {"status", "allowed"}}}};
      emit({{"type", "rate_limit_event"}, {"rate_limit_info", event_info}, {"uuid", ctx_.ids->uuid()},
            {"session_id", session_}});
    }
    synthetic(p, limit_info);
    result(true, p.text, "stop_sequence", p.terminal_reason, p.status, p.type, p.api_error, false);
    return 1;
  }

  std::vector<std::string> side_files() const override {
    if (native_.path().empty()) return {};
    return {native_.path()};
  }

private:
  // The delay claude waits after its n-th api_retry line: 500 ms doubling
  // per attempt up to 32 s, at least the provider's retry-after, plus up to
  // a quarter of jitter (the captures' 578, 1008, 2291 ... 36109 ms).
  millis retry_delay_ms(const claude_plan& p, int n) {
    double base = std::min(500.0 * std::pow(2.0, n - 1), 32000.0);
    base = std::max(base, p.retry_after_s * 1000.0);
    return static_cast<millis>(base * (1.0 + 0.25 * ctx_.ids->fraction()));
  }

  // A request cut after its message_start: claude counts the start's usage
  // (the input, 1 output token) and charges the input and 10 output tokens,
  // as its captures show (stream_cut: 11 requests, usage 3,531 / 11 tokens,
  // $0.020405).
  void cut_request() {
    runtime::token_usage u = request_usage(claude_request_usage());
    runtime::token_usage charged = u;
    charged.output_tokens = 10;
    u.output_tokens = 1;
    u.cost_usd = claude_list_cost(charged);
    total_ += u;
    ++answered_;
  }

  bool retry_line(const claude_plan& p, int n) {
    if (p.cut) cut_request();
    millis delay = retry_delay_ms(p, n);
    emit({{"type", "system"}, {"subtype", "api_retry"}, {"attempt", n}, {"max_retries", ctx_.env.claude_max_retries},
          {"retry_delay_ms", delay}, {"error_status", p.retry_status}, {"error", p.retry_error},
          {"session_id", session_}, {"uuid", ctx_.ids->uuid()}});
    return !ctx_.wait || ctx_.wait(static_cast<double>(delay) / 1000.0);
  }

  ojson init_event() {
    std::string folder = ctx_.env.claude_projects.empty()
                             ? std::string("/root/.claude/projects")
                             : ctx_.env.claude_projects;
    folder += "/" + runtime::claude_project_folder(ctx_.workspace) + "/memory/";
    ojson e{{"type", "system"}, {"subtype", "init"}, {"cwd", ctx_.workspace}, {"session_id", session_}};
    e["tools"] = {"Task", "Bash", "CronCreate", "CronDelete", "CronList", "Edit", "EnterWorktree", "ExitWorktree",
                  "ListAgents", "Monitor", "NotebookEdit", "Read", "ReportFindings", "ScheduleWakeup", "SendMessage",
                  "Skill", "TaskStop", "ToolSearch", "WebFetch", "WebSearch", "Workflow", "Write"};
    e["mcp_servers"] = ojson::array();
    e["model"] = ctx_.inv.model;
    e["permissionMode"] = "bypassPermissions";
    e["slash_commands"] = {"code-review", "verify", "debug", "simplify", "batch", "doctor", "loop", "agents",
                           "clear", "compact", "config", "context", "effort", "init", "mcp", "model",
                           "security-review", "usage"};
    e["terminal_slash_commands"] = {"doctor", "color", "focus", "reload-plugins"};
    e["apiKeySource"] = ctx_.env.anthropic_api_key ? "ANTHROPIC_API_KEY" : "none";
    e["claude_code_version"] = claude_version;
    e["output_style"] = "default";
    e["agents"] = {"claude", "Explore", "general-purpose", "Plan", "statusline-setup"};
    e["skills"] = {"code-review", "verify", "debug", "simplify", "batch", "doctor", "loop"};
    e["plugins"] = {{{"name", "cc-plugin-agents-md"}, {"path", "builtin"}, {"source", "cc-plugin-agents-md@builtin"}}};
    e["capabilities"] = {"interrupt_receipt_v1", "msg_lifecycle_v1", "sdk_mcp_manifests", "ui_surface_v1"};
    e["analytics_disabled"] = true;
    e["product_feedback_disabled"] = true;
    e["served_by_anthropic"] = ctx_.env.anthropic_base_url.empty();
    e["uuid"] = ctx_.ids->uuid();
    e["sandbox_enabled"] = false;
    e["memory_paths"] = {{"auto", folder}};
    e["original_cwd"] = ctx_.workspace;
    e["additional_directories"] = ojson::array();
    e["messaging_socket_path"] = "/tmp/cc-socks/" + ctx_.ids->hex(5) + ".sock";
    e["fast_mode_state"] = "off";
    e["fast_mode_disabled_reason"] = "sdk_opt_in_required";
    e["per_turn_effort_active"] = false;
    e["ultrathink_available"] = false;
    e["ultrathink_typed_raises"] = false;
    e["view_mode"] = "default";
    return e;
  }

  ojson assistant_message(ojson content, const char* stop_reason_in_transcript, ojson& transcript_copy) {
    ojson message{{"id", "msg_" + ctx_.ids->hex(24)}, {"type", "message"}, {"role", "assistant"},
                  {"model", ctx_.inv.model}, {"content", std::move(content)}, {"stop_reason", nullptr},
                  {"stop_sequence", nullptr},
                  {"usage", start_usage()},
                  {"context_management", nullptr}};
    answered();
    transcript_copy = message;
    transcript_copy["stop_reason"] = stop_reason_in_transcript;
    return message;
  }

  // A message's usage as claude prints it while it streams: the figures of
  // the message's start, one output token.
  ojson start_usage() const {
    runtime::token_usage u = request_usage(claude_request_usage());
    return {{"input_tokens", u.input_tokens.value_or(0)}, {"output_tokens", 1},
            {"cache_creation_input_tokens", u.cache_write_tokens.value_or(0)},
            {"cache_read_input_tokens", u.cache_read_tokens.value_or(0)}};
  }

  // One request answered (an assistant message): its usage and cost join
  // the run's.
  void answered() {
    runtime::token_usage u = request_usage(claude_request_usage());
    if (!u.cost_usd) u.cost_usd = claude_list_cost(u);
    total_ += u;
    ++answered_;
  }

  std::string tool_use(const std::string& what) {
    std::string id = "toolu_" + ctx_.ids->hex(24);
    ojson copy;
    ojson message = assistant_message(
        {{{"type", "tool_use"}, {"id", id}, {"name", "Bash"},
          {"input", {{"command", what}, {"description", "Run " + what.substr(0, what.find(' '))}}}}},
        "tool_use", copy);
    assistant_event(message);
    transcript("assistant", copy, {});
    return id;
  }

  void assistant_text(const std::string& text, const char* stop_reason) {
    ojson copy;
    ojson message = assistant_message({{{"type", "text"}, {"text", text}}}, stop_reason, copy);
    assistant_event(message);
    transcript("assistant", copy, {});
  }

  void assistant_event(const ojson& message) {
    emit({{"type", "assistant"}, {"message", message}, {"parent_tool_use_id", nullptr}, {"session_id", session_},
          {"uuid", ctx_.ids->uuid()}, {"timestamp", runtime::format_utc_iso(ctx_.clock->now())},
          {"request_id", "req_" + ctx_.ids->hex(24)}});
  }

  // The CLI's own message about a failed request.
  void synthetic(const claude_plan& p, const ojson& limit_info) {
    ojson message{{"diagnostics", nullptr}, {"id", ctx_.ids->uuid()}, {"container", nullptr},
                  {"model", "<synthetic>"}, {"role", "assistant"}, {"stop_details", nullptr},
                  {"stop_reason", "stop_sequence"}, {"stop_sequence", ""}, {"type", "message"},
                  {"usage", {{"output_tokens_details", nullptr}, {"input_tokens", 0}, {"output_tokens", 0},
                             {"cache_creation_input_tokens", 0}, {"cache_read_input_tokens", 0},
                             {"server_tool_use", {{"web_search_requests", 0}, {"web_fetch_requests", 0}}},
                             {"service_tier", nullptr},
                             {"cache_creation", {{"ephemeral_1h_input_tokens", 0}, {"ephemeral_5m_input_tokens", 0}}},
                             {"inference_geo", nullptr}, {"iterations", nullptr}, {"speed", nullptr},
                             {"fallback_credit", nullptr}}},
                  {"content", {{{"type", "text"}, {"text", p.text}}}}, {"context_management", nullptr}};
    ojson e{{"type", "assistant"}, {"message", message}, {"parent_tool_use_id", nullptr}, {"session_id", session_},
            {"uuid", ctx_.ids->uuid()}, {"timestamp", runtime::format_utc_iso(ctx_.clock->now())},
            {"error", p.error}};
    ojson extra{{"isApiErrorMessage", true}};
    bool http = !p.status.is_null();
    if (http) e["request_id"] = "req_" + ctx_.ids->hex(24);
    e["is_api_error_message"] = true;
    if (http) e["api_error_status"] = p.status;
    if (!p.api_error.empty()) e["api_error"] = p.api_error;
    if (!limit_info.is_null()) e["api_error_params"] = {{"rate_limit_info", limit_info}};
    if (!p.type.empty()) e["api_error_type"] = p.type;
    emit(e);
    extra["error"] = p.error;
    if (http) extra["apiErrorStatus"] = p.status;
    if (!p.type.empty()) extra["apiErrorType"] = p.type;
    transcript("assistant", message, extra);
  }

  // The one result line with the run's usage and cost (every request
  // answered before it, also when the last one failed); `answered`: the
  // last request was answered, false for one that failed.
  void result(bool is_error, const std::string& text, const char* stop_reason, const std::string& terminal_reason,
              ojson status, const std::string& type, const std::string& api_error, bool answered) {
    millis elapsed = ctx_.clock->now() - start_;
    double cost = total_.cost_usd.value_or(0);
    ojson model_usage = ojson::object();
    if (answered_ > 0)
      model_usage[ctx_.inv.model] = {{"inputTokens", total_.input_tokens.value_or(0)},
                                     {"outputTokens", total_.output_tokens.value_or(0)},
                                     {"cacheReadInputTokens", total_.cache_read_tokens.value_or(0)},
                                     {"cacheCreationInputTokens", total_.cache_write_tokens.value_or(0)},
                                     {"webSearchRequests", 0}, {"costUSD", cost},
                                     {"contextWindow", 1000000}, {"maxOutputTokens", 64000}};
    ojson r{{"duration_api_ms", answered ? elapsed : 0}, {"stop_reason", stop_reason}, {"session_id", session_},
            {"total_cost_usd", cost}, {"usage", usage_of(total_)}, {"modelUsage", model_usage},
            {"permission_denials", ojson::array()}, {"terminal_reason", terminal_reason},
            {"fast_mode_state", "off"}, {"fast_mode_disabled_reason", "sdk_opt_in_required"},
            {"subagent_stats", {{"spawned", 0}, {"completed", 0}, {"failed", 0}}}, {"safety_stops", 0},
            {"is_error", is_error}, {"num_turns", turns_ + 1}, {"subtype", "success"},
            {"api_error_status", std::move(status)}};
    if (!type.empty()) r["api_error_type"] = type;
    if (!api_error.empty()) r["api_error"] = api_error;
    r["result"] = text;
    if (answered) r["ttft_ms"] = 0;
    r["type"] = "result";
    r["duration_ms"] = elapsed;
    r["uuid"] = ctx_.ids->uuid();
    if (answered) {
      r["ttft_stream_ms"] = 0;
      r["time_to_request_ms"] = 0;
      r["first_content_frame_ms"] = 0;
    }
    r["queued_turn_count"] = 0;
    r["result_index"] = 0;
    r["model_usage_since_last_result"] = model_usage;
    emit(r);
    if (native_.is_open())
      native_.write(dump({{"type", "last-prompt"}, {"lastPrompt", ctx_.inv.prompt}, {"leafUuid", parent_},
                          {"sessionId", session_}}));
  }

  // One transcript entry, chained by parentUuid.
  void transcript(const char* type, const ojson& message, const ojson& extra) {
    if (!native_.is_open()) return;
    std::string uuid = ctx_.ids->uuid();
    ojson entry{{"parentUuid", parent_.empty() ? ojson(nullptr) : ojson(parent_)}, {"isSidechain", false},
                {"type", type}, {"message", message}, {"uuid", uuid},
                {"timestamp", runtime::format_utc_iso(ctx_.clock->now())}};
    for (auto it = extra.begin(); it != extra.end(); ++it) entry[it.key()] = it.value();
    entry["userType"] = "external";
    entry["entrypoint"] = "sdk-cli";
    entry["cwd"] = ctx_.workspace;
    entry["sessionId"] = session_;
    entry["version"] = claude_version;
    entry["gitBranch"] = "HEAD";
    native_.write(dump(entry));
    parent_ = uuid;
  }

  void emit(const ojson& event) { line(out_, dump(event)); }

  emit_context ctx_;
  std::ostream& out_;
  std::ostream& err_;
  side_file native_;
  std::string session_;
  std::string parent_;
  millis start_ = 0;
  int turns_ = 0;
  int answered_ = 0;           // requests the model answered (assistant messages) or began to (cut ones)
  runtime::token_usage total_; // their usage and cost
};

} // namespace

std::unique_ptr<emitter> make_claude_emitter(const emit_context& c, std::ostream& o, std::ostream& e) {
  return std::make_unique<claude_emitter>(c, o, e);
}

} // namespace ad::agent_sim::detail
