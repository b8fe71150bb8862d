// pi `-p --mode json` as pi 0.73.1 prints it (tests/fixtures/realcli/pi):
// the events of each agent run, message_update while a message streams,
// its auto-retry (3 attempts, 2/4/8 s) of the errors it retries,
// compaction_start after a context overflow, nothing on stderr, exit 0
// whether or not the model call failed, and the version-3 session file.
#include <array>

#include "runtime/core/clock.hpp"
#include "runtime/core/files.hpp"
#include "tools/agent-sim/emitter_support.hpp"

namespace ad::agent_sim::detail {

namespace {

using runtime::millis;

constexpr int pi_max_attempts = 3;
constexpr millis pi_base_delay_ms = 2000;

// How pi ends a failed model call: the assistant's errorMessage, whether
// it retries it, the text streamed before a cut stream, and the
// compaction it starts after a context overflow.
struct pi_plan {
  std::string error;
  bool retried = false;
  std::string partial;  // text streamed before the stream was cut
  bool overflow = false;
};

pi_plan pi_plan_for(const failure_report& f, const emit_context& ctx) {
  pi_plan p;
  const std::string& model = ctx.inv.model;
  switch (f.kind) {
    case failure_kind::rate_limit:
    case failure_kind::resource_exhausted:
    case failure_kind::usage_limit:
      p.retried = true;
      p.error = "429 Rate limit reached for " + model + " in organization org-" + ctx.ids->hex(12) +
                " on requests per min (RPM): Limit 20, Used 20, Requested 1. Please try again in " +
                seconds_text(try_again_in(f, 2)) +
                ". Visit https://platform.openai.com/account/rate-limits to learn more.";
      break;
    case failure_kind::quota_exceeded:
      p.retried = true;
      p.error = "429 You exceeded your current quota, please check your plan and billing details. For more "
                "information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/"
                "api-errors.";
      break;
    case failure_kind::context_length:
      p.overflow = true;
      p.error = "400 This model's maximum context length is 131072 tokens. However, your messages resulted in "
                "140211 tokens. Please reduce the length of the messages.";
      break;
    case failure_kind::model_overloaded:
      p.retried = true;
      p.error = "503 The server is overloaded or not ready yet.";
      break;
    case failure_kind::model_unavailable:
      p.error = "404 The model `" + model + "` does not exist or you do not have access to it.";
      break;
    case failure_kind::connection_refused:
      p.retried = true;
      p.error = "Connection error.";
      break;
    case failure_kind::stream_disconnected:
      p.retried = true;
      p.error = "terminated";
      p.partial = "I will start by writing the file";
      break;
    case failure_kind::file_exists:
    case failure_kind::file_not_found:
    case failure_kind::error:
    case failure_kind::root_refusal:
      p.error = f.message;
      break;
  }
  if (f.scripted_message) p.error = f.message;
  return p;
}

ojson zero_usage() {
  return {{"input", 0}, {"output", 0}, {"cacheRead", 0}, {"cacheWrite", 0}, {"totalTokens", 0},
          {"cost", {{"input", 0}, {"output", 0}, {"cacheRead", 0}, {"cacheWrite", 0}, {"total", 0}}}};
}

// What the captures' mock served each pi request (a model without a price).
runtime::token_usage pi_request_usage() {
  runtime::token_usage u;
  u.input_tokens = 1234;
  u.output_tokens = 56;
  u.cache_read_tokens = 0;
  u.cache_write_tokens = 0;
  return u;
}

// An answered message's usage in pi's fields. A cost is pi's own figure
// from the model's prices in models.json: its total, shared among the kinds
// in proportion to their tokens; without one every cost is 0, as pi writes
// it for a model without a price.
ojson answer_usage(const runtime::token_usage& r) {
  ojson u = zero_usage();
  int64_t in = r.input_tokens.value_or(0), out = r.output_tokens.value_or(0);
  int64_t read = r.cache_read_tokens.value_or(0), write = r.cache_write_tokens.value_or(0);
  int64_t total = in + out + read + write;
  u["input"] = in;
  u["output"] = out;
  u["cacheRead"] = read;
  u["cacheWrite"] = write;
  u["totalTokens"] = total;
  if (r.cost_usd && total > 0) {
    double c = *r.cost_usd;
    auto share = [&](int64_t n) { return c * static_cast<double>(n) / static_cast<double>(total); };
    u["cost"] = {{"input", share(in)}, {"output", share(out)}, {"cacheRead", share(read)},
                 {"cacheWrite", share(write)}, {"total", c}};
  }
  return u;
}

class pi_emitter final : public emitter {
public:
  pi_emitter(const emit_context& c, std::ostream& o, std::ostream& e) : ctx_(c), out_(o), err_(e) {}

  void begin() override {
    millis now = ctx_.clock->now();
    std::string stamp = runtime::format_utc_iso(now);
    ojson header;
    if (!ctx_.inv.session_file.empty()) {
      header = load(ctx_.inv.session_file);
      session_.open(ctx_.inv.session_file, write_errors_);
    }
    if (!header.is_object()) {
      id_ = ctx_.inv.session_id.empty() ? ctx_.ids->uuid_v7(now) : ctx_.inv.session_id;
      std::string dir = ctx_.inv.session_dir.empty() ? ctx_.workspace + "/.pi-sessions" : ctx_.inv.session_dir;
      std::string file_stamp = stamp;
      for (char& ch : file_stamp)
        if (ch == ':' || ch == '.') ch = '-';
      if (!session_.is_open()) session_.open(dir + "/" + file_stamp + "_" + id_ + ".jsonl", write_errors_);
      header = {{"type", "session"}, {"version", 3}, {"id", id_}, {"timestamp", stamp}, {"cwd", ctx_.workspace}};
      session_.write(dump(header));
      entry({{"type", "model_change"}, {"provider", provider()}, {"modelId", ctx_.inv.model}});
      entry({{"type", "thinking_level_change"}, {"thinkingLevel", ctx_.inv.effort.empty() ? "medium" : ctx_.inv.effort}});
    }
    emit(header);
    start_agent();
    message_events({{"role", "user"}, {"content", {{{"type", "text"}, {"text", ctx_.inv.prompt}}}},
                    {"timestamp", now}});
  }

  void step(int index, const std::string& what) override {
    std::string call = call_tool(what);
    ojson args{{"command", what}};
    ojson content = {{{"type", "text"}, {"text", "step " + std::to_string(index) + " ok\n"}}};
    emit({{"type", "tool_execution_update"}, {"toolCallId", call}, {"toolName", "bash"}, {"args", args},
          {"partialResult", {{"content", ojson::array()}}}});
    emit({{"type", "tool_execution_update"}, {"toolCallId", call}, {"toolName", "bash"}, {"args", args},
          {"partialResult", {{"content", content}, {"details", ojson::object()}}}});
    emit({{"type", "tool_execution_end"}, {"toolCallId", call}, {"toolName", "bash"}, {"result", {{"content", content}}},
          {"isError", false}});
    ojson result{{"role", "toolResult"}, {"toolCallId", call}, {"toolName", "bash"}, {"content", content},
                 {"isError", false}, {"timestamp", ctx_.clock->now()}};
    message_events(result);
    emit({{"type", "turn_end"}, {"message", last_assistant_}, {"toolResults", {result}}});
    emit({{"type", "turn_start"}});
  }

  void tool_pending(const std::string& what) override {
    std::string call = call_tool(what);
    emit({{"type", "tool_execution_update"}, {"toolCallId", call}, {"toolName", "bash"},
          {"args", {{"command", what}}}, {"partialResult", {{"content", ojson::array()}}}});
  }

  void retried(const failure_report& f, int times) override {
    pi_plan p = pi_plan_for(f, ctx_);
    if (!p.retried) return;
    for (int n = 1; n <= times && n <= pi_max_attempts; ++n) {
      failed_call(p);
      if (!retry_start(p, n)) return;
      retrying_ = n;
    }
  }

  void success(const std::string& summary) override {
    ojson m = assistant({{{"type", "text"}, {"text", summary}}}, "stop");
    stream_text(m, summary, true);
    message_events(m, false);
    emit({{"type", "turn_end"}, {"message", m}, {"toolResults", ojson::array()}});
    end_agent();
  }

  int failure(const failure_report& f) override {
    pi_plan p = pi_plan_for(f, ctx_);
    failed_call(p);
    if (p.retried) {
      int attempt = retrying_;
      while (attempt < pi_max_attempts) {
        ++attempt;
        if (!retry_start(p, attempt)) return 0;
        failed_call(p);
      }
      emit({{"type", "auto_retry_end"}, {"success", false}, {"attempt", attempt}, {"finalError", p.error}});
    }
    if (p.overflow) {
      emit({{"type", "compaction_start"}, {"reason", "overflow"}});
      entry({{"type", "compaction"}, {"summary", "## Goal\nThe user asked for the task.\n## Progress\nNothing done yet."},
             {"firstKeptEntryId", first_entry_}, {"tokensBefore", 140211},
             {"details", {{"readFiles", ojson::array()}, {"modifiedFiles", ojson::array()}}}, {"fromHook", false}});
    }
    return 0;
  }

  std::vector<std::string> side_files() const override {
    if (session_.path().empty()) return {};
    return {session_.path()};
  }

private:
  std::string provider() const { return ctx_.inv.provider.empty() ? "iop" : ctx_.inv.provider; }

  // The header of an existing session file, its last entry's id (the
  // parent of what this run appends) and its first entry's id.
  ojson load(const std::string& path) {
    auto text = runtime::read_file(path);
    if (!text) return nullptr;
    ojson header;
    std::size_t pos = 0;
    while (pos < text->size()) {
      std::size_t nl = text->find('\n', pos);
      std::string l = text->substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      pos = nl == std::string::npos ? text->size() : nl + 1;
      auto j = ojson::parse(l, nullptr, false);
      if (!j.is_object()) continue;
      if (j.value("type", "") == "session") {
        header = j;
        if (j.contains("id") && j["id"].is_string()) id_ = j["id"].get<std::string>();
      } else if (j.contains("id") && j["id"].is_string()) {
        if (first_entry_.empty()) first_entry_ = j["id"].get<std::string>();
        parent_ = j["id"].get<std::string>();
      }
    }
    return header;
  }

  void start_agent() {
    emit({{"type", "agent_start"}});
    emit({{"type", "turn_start"}});
    run_messages_ = ojson::array();
  }

  void end_agent() { emit({{"type", "agent_end"}, {"messages", run_messages_}}); }

  ojson assistant(ojson content, const char* stop) {
    return {{"role", "assistant"}, {"content", std::move(content)}, {"api", "openai-completions"},
            {"provider", provider()}, {"model", ctx_.inv.model}, {"usage", answer_usage(request_usage(pi_request_usage()))},
            {"stopReason", stop}, {"timestamp", ctx_.clock->now()}, {"responseId", "chatcmpl-" + ctx_.ids->hex(10)}};
  }

  // message_start with the empty message, then message_update events as
  // the text arrives (the last one, text_end, only when the stream ends).
  void stream_text(const ojson& m, const std::string& text, bool complete) {
    ojson streaming = m;  // the message as it arrives: no error yet
    streaming.erase("errorMessage");
    streaming["content"] = ojson::array();
    streaming["usage"] = zero_usage();
    streaming["stopReason"] = "stop";
    ojson start = streaming;  // the response id comes with the first chunk
    start.erase("responseId");
    emit({{"type", "message_start"}, {"message", start}});
    std::size_t half = text.size() / 2;
    std::string parts[2] = {text.substr(0, half), text.substr(half)};
    std::string so_far;
    for (int i = 0; i < 2; ++i) {
      so_far += parts[i];
      ojson partial = streaming;
      partial["content"] = {{{"type", "text"}, {"text", so_far}}};
      ojson ev{{"type", i == 0 ? "text_start" : "text_delta"}, {"contentIndex", 0}};
      if (i > 0) ev["delta"] = parts[i];
      ev["partial"] = partial;
      update(ev, partial);
    }
    if (complete) {
      ojson partial = streaming;
      partial["content"] = {{{"type", "text"}, {"text", text}}};
      update({{"type", "text_end"}, {"contentIndex", 0}, {"content", text}, {"partial", partial}}, partial);
    }
  }

  void update(const ojson& event, const ojson& partial) {
    emit({{"type", "message_update"}, {"assistantMessageEvent", event}, {"message", partial}});
  }

  std::string call_tool(const std::string& what) {
    std::string call = "call_" + ctx_.ids->hex(16);
    ojson args{{"command", what}};
    ojson block{{"type", "toolCall"}, {"id", call}, {"name", "bash"}, {"arguments", args}};
    ojson m = assistant({block}, "toolUse");
    ojson partial = m;
    partial["usage"] = zero_usage();
    partial["stopReason"] = "stop";
    ojson start = partial;
    start["content"] = ojson::array();
    start.erase("responseId");
    emit({{"type", "message_start"}, {"message", start}});
    update({{"type", "toolcall_start"}, {"contentIndex", 0}, {"partial", partial}}, partial);
    update({{"type", "toolcall_delta"}, {"contentIndex", 0}, {"delta", dump(args)}, {"partial", partial}}, partial);
    update({{"type", "toolcall_end"}, {"contentIndex", 0}, {"toolCall", block}, {"partial", partial}}, partial);
    message_events(m, false);
    emit({{"type", "tool_execution_start"}, {"toolCallId", call}, {"toolName", "bash"}, {"args", args}});
    return call;
  }

  // One failed model call: the assistant's error message, turn_end, agent_end.
  void failed_call(const pi_plan& p) {
    ojson m = assistant(ojson::array(), "error");
    m["usage"] = zero_usage();
    m.erase("responseId");
    if (!p.partial.empty()) {
      m["content"] = {{{"type", "text"}, {"text", p.partial}}};
      m["responseId"] = "chatcmpl-" + ctx_.ids->hex(10);
      m["errorMessage"] = p.error;
      stream_text(m, p.partial, false);
      message_events(m, false);
    } else {
      m["errorMessage"] = p.error;
      message_events(m);
    }
    emit({{"type", "turn_end"}, {"message", m}, {"toolResults", ojson::array()}});
    end_agent();
  }

  // auto_retry_start, pi's wait, and the next agent run.
  bool retry_start(const pi_plan& p, int attempt) {
    millis delay = pi_base_delay_ms << (attempt - 1);
    emit({{"type", "auto_retry_start"}, {"attempt", attempt}, {"maxAttempts", pi_max_attempts}, {"delayMs", delay},
          {"errorMessage", p.error}});
    if (ctx_.wait && !ctx_.wait(static_cast<double>(delay) / 1000.0)) return false;
    start_agent();
    return true;
  }

  // One session entry plus message_start (unless streamed) and message_end.
  void message_events(const ojson& m, bool with_start = true) {
    entry({{"type", "message"}, {"message", m}});
    if (with_start) emit({{"type", "message_start"}, {"message", m}});
    emit({{"type", "message_end"}, {"message", m}});
    run_messages_.push_back(m);
    if (m.value("role", "") == "assistant") {
      last_assistant_ = m;
      // The first answer after a retry ends the retry.
      if (retrying_ > 0 && m.value("stopReason", "") != "error") {
        emit({{"type", "auto_retry_end"}, {"success", true}, {"attempt", retrying_}});
        retrying_ = 0;
      }
    }
  }

  // A session entry with its id, parentId and timestamp.
  void entry(ojson fields) {
    std::string id = ctx_.ids->hex(8);
    ojson e{{"type", fields["type"]}, {"id", id}, {"parentId", parent_.empty() ? ojson(nullptr) : ojson(parent_)},
            {"timestamp", runtime::format_utc_iso(ctx_.clock->now())}};
    for (auto it = fields.begin(); it != fields.end(); ++it)
      if (it.key() != "type") e[it.key()] = it.value();
    session_.write(dump(e));
    if (first_entry_.empty()) first_entry_ = id;
    parent_ = id;
  }

  void emit(const ojson& event) { line(out_, dump(event)); }

  emit_context ctx_;
  std::ostream& out_;
  std::ostream& err_;
  side_file session_;
  std::string id_;
  std::string parent_;
  std::string first_entry_;
  ojson run_messages_ = ojson::array();
  ojson last_assistant_;
  int retrying_ = 0;
};

} // namespace

std::unique_ptr<emitter> make_pi_emitter(const emit_context& c, std::ostream& o, std::ostream& e) {
  return std::make_unique<pi_emitter>(c, o, e);
}

} // namespace ad::agent_sim::detail
