// codex `exec --json` as codex-cli 0.171.0 prints it (tests/fixtures/realcli/
// codex): the events, its own retries with the captured waits, the texts of
// each failure, exit 1 on a failed turn, the usage (the thread's totals in
// turn.completed, and a token_count after each answered request in the
// rollout), and the rollout file.
#include <array>

#include "runtime/core/clock.hpp"
#include "tools/agent-sim/emitter_support.hpp"

namespace ad::agent_sim::detail {

namespace {

using runtime::millis;

// How codex ends a failed turn: its error text, its "Reconnecting... n/5"
// lines, the waits before each of them and before the final error (from
// the captures' timelines), and the typed code its rollout records.
struct codex_plan {
  std::string text;
  int reconnects = 0;
  std::vector<double> waits;  // reconnects + 1 entries
  ojson error_info = "other";
  bool network_wait = false;  // connection refused: waits for the network forever
};

constexpr int codex_max_reconnects = 5;
// "Reconnecting... waiting for network" gaps: 3.1, 7.8, 13.1, 23.0, 43.1 s,
// then about a minute each (codex/refused_1200s).
constexpr std::array<double, 5> network_gaps{3.1, 7.8, 13.1, 23.0, 43.1};
constexpr double network_gap_max = 63.1;

std::vector<double> repeated(double first, double each) {
  std::vector<double> w{first};
  for (int i = 0; i < codex_max_reconnects; ++i) w.push_back(each);
  return w;
}

bool known_model(const std::string& model) {
  for (std::string_view prefix : {"gpt-5", "gpt-4.1", "gpt-4o", "o3", "o4-mini", "codex-"})
    if (model.rfind(prefix, 0) == 0) return true;
  return false;
}

codex_plan codex_plan_for(const failure_report& f, const emit_context& ctx, millis now) {
  codex_plan p;
  const std::string& model = ctx.inv.model;
  std::string url =
      (ctx.env.openai_base_url.empty() ? std::string("https://api.openai.com/v1") : ctx.env.openai_base_url) +
      "/responses";
  switch (f.kind) {
    case failure_kind::rate_limit:
    case failure_kind::resource_exhausted:
      p.reconnects = codex_max_reconnects;
      if (f.variant == "in_stream") {
        double ra = retry_after_or(f, 1.5);
        p.text = "rate limit exceeded: Rate limit reached for " + model + " in organization org-" +
                 ctx.ids->hex(12) + " on tokens per min (TPM): Limit 30000, Used 30000, Requested 1240. " +
                 "Please try again in " + seconds_text(try_again_in(f, 1.5)) + ".";
        p.waits = repeated(0.09, ra);
        p.error_info = "rate_limit_exceeded";
      } else {
        p.text = "exceeded retry limit, last status: 429 Too Many Requests, request id: req_" + ctx.ids->hex(32);
        p.waits = repeated(0.07, retry_after_or(f, 2));
        p.error_info = {{"response_too_many_failed_attempts", {{"http_status_code", 429}}}};
      }
      break;
    case failure_kind::quota_exceeded:
      p.text = "Quota exceeded. Check your plan and billing details.";
      p.error_info = "usage_limit_exceeded";
      break;
    case failure_kind::usage_limit:
      p.text = "You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit "
               "https://chatgpt.com/settings/usage to purchase more credits or try again at " +
               codex_reset_text(f.resets_at, now, ctx.env.zone) + ".";
      p.error_info = "usage_limit_exceeded";
      break;
    case failure_kind::context_length:
      p.text = "Codex ran out of room in the model's context window. Start a new thread or clear earlier "
               "history before retrying.";
      p.error_info = "context_window_exceeded";
      break;
    case failure_kind::model_overloaded:
      if (f.variant == "503") {
        p.text = "unexpected status 503 Service Unavailable: The engine is currently overloaded, please try "
                 "again later., url: " + url;
        p.reconnects = codex_max_reconnects;
        p.waits = {3.06, 3.28, 3.35, 3.75, 4.48, 6.24};
        p.error_info = {{"http_connection_failed", {{"http_status_code", 503}}}};
      } else if (f.variant == "529") {
        p.text = "unexpected status 529 <unknown status code>: Overloaded, url: " + url;
        p.reconnects = codex_max_reconnects;
        p.waits = {3.16, 3.34, 3.42, 3.81, 4.40, 6.09};
        p.error_info = {{"http_connection_failed", {{"http_status_code", 529}}}};
      } else {
        p.text = "Selected model is at capacity. Please try a different model.";
        p.waits = {2.96};
        p.error_info = "server_overloaded";
      }
      break;
    case failure_kind::model_unavailable:
      p.text = "The model `" + model + "` does not exist or you do not have access to it.";
      p.error_info = "model_not_found";
      break;
    case failure_kind::connection_refused:
      p.text = "Reconnecting... waiting for network (Connection failed: error sending request)";
      p.network_wait = true;
      break;
    case failure_kind::stream_disconnected:
      p.reconnects = codex_max_reconnects;
      if (f.variant == "dropped") {
        p.text = "stream disconnected before completion: error sending request";
        p.waits = {3.29, 3.02, 3.52, 3.96, 5.04, 6.18};
      } else {
        p.text = "stream disconnected before completion: stream closed before response.completed";
        p.waits = {0.28, 0.42, 0.59, 0.97, 1.97, 3.65};
      }
      break;
    case failure_kind::file_exists:
    case failure_kind::file_not_found:
    case failure_kind::error:
    case failure_kind::root_refusal:
      p.text = f.message;
      break;
  }
  if (f.scripted_message && !p.network_wait) p.text = f.message;
  p.waits.resize(static_cast<std::size_t>(p.reconnects) + 1, 0.0);
  return p;
}

class codex_emitter final : public emitter {
public:
  codex_emitter(const emit_context& c, std::ostream& o, std::ostream& e) : ctx_(c), out_(o), err_(e) {}

  void begin() override {
    started_ = ctx_.clock->now();
    thread_ = ctx_.ids->uuid_v7(started_);
    turn_ = ctx_.ids->uuid_v7(started_);
    if (!ctx_.env.stdin_is_terminal) line(err_, "Reading additional input from stdin...");
    if (!ctx_.env.codex_home.empty()) open_rollout();
    emit({{"type", "thread.started"}, {"thread_id", thread_}});
    if (!known_model(ctx_.inv.model))
      emit({{"type", "item.completed"},
            {"item", {{"id", next_item()}, {"type", "error"},
                      {"message", "Model metadata for `" + ctx_.inv.model +
                                      "` not found. Defaulting to fallback metadata; this can degrade "
                                      "performance and cause issues."}}}});
    emit({{"type", "turn.started"}});
  }

  void step(int index, const std::string& what) override {
    std::string id = next_item();
    std::string output = "step " + std::to_string(index) + " ok\n";
    emit(command_item("item.started", id, what, "", nullptr, "in_progress"));
    emit(command_item("item.completed", id, what, output, 0, "completed"));
    std::string call = "call_" + ctx_.ids->hex(24);
    record("response_item", {{"type", "function_call"}, {"status", "completed"}, {"id", "fc_" + ctx_.ids->hex(24)},
                             {"name", "exec_command"}, {"arguments", dump(ojson{{"cmd", what}})},
                             {"call_id", call}});
    record("event_msg", {{"type", "item_completed"}, {"thread_id", thread_}, {"turn_id", turn_},
                         {"item", {{"type", "CommandExecution"}, {"id", call},
                                   {"command", {"/bin/bash", "-lc", what}},
                                   {"cwd", "file://" + ctx_.workspace}, {"status", "completed"},
                                   {"aggregated_output", output}, {"exit_code", 0}}}});
    record("response_item", {{"type", "function_call_output"}, {"call_id", call},
                             {"output", "Process exited with code 0\nOutput:\n" + output}});
    answered();
  }

  void tool_pending(const std::string& what) override {
    emit(command_item("item.started", next_item(), what, "", nullptr, "in_progress"));
  }

  void collab_tool(const std::string& tool) override {
    emit({{"type", "item.started"},
          {"item", {{"id", next_item()}, {"type", "collab_tool_call"}, {"tool", tool}, {"status", "in_progress"}}}});
  }

  void retried(const failure_report& f, int times) override {
    codex_plan p = codex_plan_for(f, ctx_, ctx_.clock->now());
    if (p.network_wait) {
      for (int n = 0; n < times; ++n) {
        if (!wait(network_gap(n))) return;
        emit({{"type", "error"}, {"message", p.text}});
      }
      return;
    }
    int shown = std::min(times, p.reconnects);
    for (int n = 0; n < shown; ++n) {
      if (!wait(p.waits[static_cast<std::size_t>(n)])) return;
      reconnecting(n + 1, p.text);
    }
    wait(p.waits[static_cast<std::size_t>(shown)]);
  }

  void success(const std::string& summary) override {
    emit({{"type", "item.completed"}, {"item", {{"id", next_item()}, {"type", "agent_message"}, {"text", summary}}}});
    answered();
    emit({{"type", "turn.completed"}, {"usage", usage_json(total_, false)}});
    std::string id = "msg_" + ctx_.ids->hex(24);
    record("event_msg", {{"type", "item_completed"}, {"thread_id", thread_}, {"turn_id", turn_},
                         {"item", {{"type", "AgentMessage"}, {"id", id},
                                   {"content", {{{"type", "Text"}, {"text", summary}}}}}}});
    record("response_item", {{"type", "message"}, {"status", "completed"}, {"id", id}, {"role", "assistant"},
                             {"content", {{{"type", "output_text"}, {"text", summary}, {"annotations", ojson::array()}}}}});
    task_complete(summary, nullptr);
  }

  int failure(const failure_report& f) override {
    codex_plan p = codex_plan_for(f, ctx_, ctx_.clock->now());
    if (p.network_wait) {
      // codex never gives up on an unreachable provider: only a signal ends it.
      for (int n = 0;; ++n) {
        if (!wait(network_gap(n))) return 1;
        emit({{"type", "error"}, {"message", p.text}});
      }
    }
    for (int n = 0; n < p.reconnects; ++n) {
      if (!wait(p.waits[static_cast<std::size_t>(n)])) return 1;
      reconnecting(n + 1, p.text);
    }
    if (!wait(p.waits.back())) return 1;
    emit({{"type", "error"}, {"message", p.text}});
    emit({{"type", "turn.failed"}, {"error", {{"message", p.text}}}});
    task_complete(nullptr, {{"message", p.text}, {"codex_error_info", p.error_info}});
    return 1;
  }

  std::vector<std::string> side_files() const override {
    if (rollout_.path().empty()) return {};
    return {rollout_.path()};
  }

private:
  static double network_gap(int n) {
    return n < static_cast<int>(network_gaps.size()) ? network_gaps[static_cast<std::size_t>(n)] : network_gap_max;
  }

  bool wait(double seconds) { return !ctx_.wait || seconds <= 0 || ctx_.wait(seconds); }

  // codex's usage fields: input_tokens count the cached and cache-written
  // input too; the rollout's form also has total_tokens.
  static ojson usage_json(const runtime::token_usage& u, bool with_total) {
    int64_t input = u.input_tokens.value_or(0) + u.cache_read_tokens.value_or(0) + u.cache_write_tokens.value_or(0);
    ojson j{{"input_tokens", input}, {"cached_input_tokens", u.cache_read_tokens.value_or(0)},
            {"cache_write_input_tokens", u.cache_write_tokens.value_or(0)},
            {"output_tokens", u.output_tokens.value_or(0)},
            {"reasoning_output_tokens", u.reasoning_tokens.value_or(0)}};
    if (with_total) j["total_tokens"] = input + u.output_tokens.value_or(0);
    return j;
  }

  // One request answered: its usage joins the thread's totals, and the
  // rollout records both, as codex does after each response.
  void answered() {
    runtime::token_usage last = request_usage(codex_request_usage());
    total_ += last;
    record("event_msg", {{"type", "token_count"},
                         {"info", {{"total_token_usage", usage_json(total_, true)},
                                   {"last_token_usage", usage_json(last, true)},
                                   {"last_usage_includes_reasoning", false},
                                   {"model_context_window", 258400}}},
                         {"rate_limits", {{"limit_id", "codex"}, {"limit_name", nullptr}, {"primary", nullptr},
                                          {"secondary", nullptr}, {"credits", nullptr},
                                          {"individual_limit", nullptr}, {"spend_control_reached", nullptr},
                                          {"plan_type", nullptr}, {"rate_limit_reached_type", nullptr}}}});
  }

  // What the captures' mock served each codex request.
  static runtime::token_usage codex_request_usage() {
    runtime::token_usage u;
    u.input_tokens = 1200;
    u.output_tokens = 40;
    u.cache_read_tokens = 0;
    u.cache_write_tokens = 0;
    u.reasoning_tokens = 0;
    return u;
  }

  std::string next_item() { return "item_" + std::to_string(item_++); }

  static ojson command_item(const char* type, const std::string& id, const std::string& what,
                            const std::string& output, ojson exit_code, const char* status) {
    return {{"type", type},
            {"item", {{"id", id}, {"type", "command_execution"}, {"command", "/bin/bash -lc \"" + what + "\""},
                      {"aggregated_output", output}, {"exit_code", std::move(exit_code)}, {"status", status}}}};
  }

  void reconnecting(int n, const std::string& text) {
    emit({{"type", "error"},
          {"message", "Reconnecting... " + std::to_string(n) + "/" + std::to_string(codex_max_reconnects) + " (" +
                          text + ")"}});
  }

  void emit(const ojson& event) { line(out_, dump(event)); }

  // ~/.codex/sessions/YYYY/MM/DD/rollout-<local stamp>-<thread id>.jsonl
  void open_rollout() {
    const auto& zone = ctx_.env.zone;
    rollout_.open(ctx_.env.codex_home + "/sessions/" + local_date_folder(started_, zone) + "/rollout-" +
                      local_file_stamp(started_, zone) + "-" + thread_ + ".jsonl",
                  write_errors_);
    std::string iso = runtime::format_utc_iso(started_);
    record("session_meta", {{"session_id", thread_}, {"id", thread_}, {"timestamp", iso}, {"cwd", ctx_.workspace},
                            {"originator", "codex_exec"}, {"cli_version", "0.171.0"}, {"source", "exec"},
                            {"model_provider", "openai"}});
    record("event_msg", {{"type", "task_started"}, {"turn_id", turn_}, {"root_turn_id", turn_},
                         {"started_at", started_ / 1000}, {"model_context_window", 258400},
                         {"collaboration_mode_kind", "default"}});
    record("turn_context", {{"turn_id", turn_}, {"cwd", ctx_.workspace}, {"approval_policy", "never"},
                            {"model", ctx_.inv.model}, {"effort", ctx_.inv.effort}});
    record("response_item", {{"type", "message"}, {"id", "msg_" + ctx_.ids->hex(24)}, {"role", "user"},
                             {"content", {{{"type", "input_text"}, {"text", ctx_.inv.prompt}}}}});
    record("event_msg", {{"type", "item_completed"}, {"thread_id", thread_}, {"turn_id", turn_},
                         {"item", {{"type", "UserMessage"}, {"id", ctx_.ids->uuid_v7(started_)},
                                   {"content", {{{"type", "text"}, {"text", ctx_.inv.prompt}}}}}}});
  }

  void record(const char* type, ojson payload) {
    if (!rollout_.is_open()) return;
    rollout_.write(dump({{"timestamp", runtime::format_utc_iso(ctx_.clock->now())}, {"ordinal", ordinal_++},
                         {"type", type}, {"payload", std::move(payload)}}));
  }

  void task_complete(ojson last_message, ojson error) {
    millis now = ctx_.clock->now();
    ojson p{{"type", "task_complete"}, {"root_turn_id", turn_}, {"turn_id", turn_},
            {"last_agent_message", std::move(last_message)}};
    if (!error.is_null()) p["error"] = std::move(error);
    p["started_at"] = started_ / 1000;
    p["completed_at"] = now / 1000;
    p["duration_ms"] = now - started_;
    record("event_msg", std::move(p));
  }

  emit_context ctx_;
  std::ostream& out_;
  std::ostream& err_;
  side_file rollout_;
  std::string thread_, turn_;
  millis started_ = 0;
  int item_ = 0;
  int ordinal_ = 0;
  runtime::token_usage total_;  // the thread's usage so far
};

} // namespace

std::unique_ptr<emitter> make_codex_emitter(const emit_context& c, std::ostream& o, std::ostream& e) {
  return std::make_unique<codex_emitter>(c, o, e);
}

} // namespace ad::agent_sim::detail
