#include "tools/agent-sim/emitter.hpp"

#include <cctype>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "runtime/core/files.hpp"

namespace ad::agent_sim {

namespace {

using ojson = nlohmann::ordered_json;
using runtime::millis;

std::string dump(const ojson& j) {
  return j.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

void line(std::ostream& os, const std::string& text) {
  os << text << '\n';
  os.flush();
}

// Appends lines to a side file (pi session, agy log), remembering failures.
class side_file {
public:
  side_file() = default;
  void open(const std::string& path, std::vector<std::string>& errors) {
    path_ = path;
    errors_ = &errors;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    out_.open(path, std::ios::app | std::ios::binary);
    if (!out_) errors.push_back("cannot open " + path);
  }
  void write(const std::string& text) {
    if (!out_.is_open()) return;
    out_ << text << '\n';
    out_.flush();
    if (!out_ && errors_) errors_->push_back("cannot write " + path_);
  }
  const std::string& path() const { return path_; }

private:
  std::string path_;
  std::ofstream out_;
  std::vector<std::string>* errors_ = nullptr;
};

class codex_emitter final : public emitter {
public:
  codex_emitter(const emit_context& c, std::ostream& o, std::ostream& e) : ctx_(c), out_(o), err_(e) {}

  void begin() override {
    std::string thread = ctx_.ids->uuid();
    if (!ctx_.native_home.empty()) {
      // ~/.codex/sessions/YYYY/MM/DD/rollout-<stamp>-<thread id>.jsonl
      std::string iso = runtime::format_utc_iso(ctx_.clock->now());
      std::string stamp = iso.substr(0, 19);
      for (char& ch : stamp)
        if (ch == ':') ch = '-';
      native_.open(ctx_.native_home + "/.codex/sessions/" + iso.substr(0, 4) + "/" + iso.substr(5, 2) + "/" +
                       iso.substr(8, 2) + "/rollout-" + stamp + "-" + thread + ".jsonl",
                   write_errors_);
      native_.write(dump(ojson{{"timestamp", iso}, {"type", "session_meta"},
                               {"payload", {{"id", thread}, {"timestamp", iso}, {"cwd", ctx_.workspace},
                                            {"originator", "codex_exec"}, {"cli_version", "0.0.0-agent-sim"}}}}));
    }
    emit((ojson{{"type", "thread.started"}, {"thread_id", thread}}));
    emit((ojson{{"type", "turn.started"}}));
  }
  void step(int index, const std::string& what) override {
    std::string id = "item_" + std::to_string(item_++);
    std::string cmd = "bash -lc \"" + what + "\"";
    emit((ojson{{"type", "item.started"},
                          {"item", {{"id", id}, {"type", "command_execution"}, {"command", cmd},
                                    {"aggregated_output", ""}, {"exit_code", nullptr},
                                    {"status", "in_progress"}}}}));
    emit((ojson{{"type", "item.completed"},
                          {"item", {{"id", id}, {"type", "command_execution"}, {"command", cmd},
                                    {"aggregated_output", "step " + std::to_string(index) + " ok\n"},
                                    {"exit_code", 0}, {"status", "completed"}}}}));
  }
  void tool_pending(const std::string& what) override {
    emit((ojson{{"type", "item.started"},
                          {"item", {{"id", "item_" + std::to_string(item_++)},
                                    {"type", "command_execution"},
                                    {"command", "bash -lc \"" + what + "\""},
                                    {"aggregated_output", ""}, {"exit_code", nullptr},
                                    {"status", "in_progress"}}}}));
  }
  void collab_tool(const std::string& tool) override {
    emit((ojson{{"type", "item.started"},
                          {"item", {{"id", "item_" + std::to_string(item_++)}, {"type", "collab_tool_call"},
                                    {"tool", tool}, {"status", "in_progress"}}}}));
  }
  void success(const std::string& summary) override {
    emit((ojson{{"type", "item.completed"},
                          {"item", {{"id", "item_" + std::to_string(item_++)},
                                    {"type", "agent_message"}, {"text", summary}}}}));
    emit((ojson{{"type", "turn.completed"},
                          {"usage", {{"input_tokens", 12000}, {"cached_input_tokens", 8000},
                                     {"output_tokens", 900}}}}));
  }
  void failure(const failure_report& f) override {
    emit((ojson{{"type", "error"}, {"message", f.message}}));
    emit((ojson{{"type", "turn.failed"}, {"error", {{"message", f.message}}}}));
  }

  std::vector<std::string> side_files() const override {
    if (native_.path().empty()) return {};
    return {native_.path()};
  }

private:
  // One stdout event, mirrored into the native session file when enabled.
  void emit(const ojson& event) {
    line(out_, dump(event));
    native_.write(dump(ojson{{"timestamp", runtime::format_utc_iso(ctx_.clock->now())}, {"type", "event_msg"},
                             {"payload", event}}));
  }

  emit_context ctx_;
  std::ostream& out_;
  std::ostream& err_;
  side_file native_;
  int item_ = 0;
};

class claude_emitter final : public emitter {
public:
  claude_emitter(const emit_context& c, std::ostream& o, std::ostream& e)
      : ctx_(c), out_(o), err_(e), session_(c.inv.session_id.empty() ? c.ids->uuid() : c.inv.session_id) {}

  void begin() override {
    start_ = ctx_.clock->now();
    if (!ctx_.native_home.empty()) {
      // ~/.claude/projects/<workspace with every byte but [A-Za-z0-9] as
      // '-'>/<session id>.jsonl, as the claude CLI names it.
      std::string encoded = ctx_.workspace;
      for (char& ch : encoded)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '-';
      native_.open(ctx_.native_home + "/.claude/projects/" + encoded + "/" + session_ + ".jsonl", write_errors_);
    }
    emit((ojson{{"type", "system"}, {"subtype", "init"}, {"cwd", ctx_.workspace},
                          {"session_id", session_},
                          {"tools", {"Bash", "Edit", "Read", "Write", "Glob", "Grep"}},
                          {"mcp_servers", ojson::array()}, {"model", ctx_.inv.model},
                          {"permissionMode", "bypassPermissions"}, {"apiKeySource", "none"},
                          {"uuid", ctx_.ids->uuid()}}));
  }
  void step(int index, const std::string& what) override {
    std::string tool = tool_use(what);
    emit((ojson{{"type", "user"},
                          {"message", {{"role", "user"},
                                       {"content", {{{"tool_use_id", tool}, {"type", "tool_result"},
                                                     {"content", "step " + std::to_string(index) + " ok"},
                                                     {"is_error", false}}}}}},
                          {"parent_tool_use_id", nullptr}, {"session_id", session_},
                          {"uuid", ctx_.ids->uuid()}}));
    ++turns_;
  }
  void tool_pending(const std::string& what) override { tool_use(what); }
  void success(const std::string& summary) override {
    assistant_text(summary);
    result(false, summary, 0, "");
  }
  std::vector<std::string> side_files() const override {
    if (native_.path().empty()) return {};
    return {native_.path()};
  }
  void failure(const failure_report& f) override {
    bool limit = f.kind == failure_kind::rate_limit || f.kind == failure_kind::quota_exceeded ||
                 f.kind == failure_kind::resource_exhausted;
    if (limit) {
      emit((ojson{{"type", "rate_limit_event"},
                            {"rate_limit_info", {{"status", "rejected"},
                                                 {"resetsAt", f.resets_at / 1000},
                                                 {"rateLimitType", "five_hour"}}},
                            {"uuid", ctx_.ids->uuid()}, {"session_id", session_}}));
    }
    std::string text = f.http_status ? "API Error: " + f.message : f.message;
    assistant_text(text);
    result(true, text, f.http_status, limit ? "rate_limit" : "");
  }

private:
  std::string tool_use(const std::string& what) {
    std::string id = "toolu_" + ctx_.ids->hex(24);
    emit((ojson{{"type", "assistant"},
                          {"message", {{"id", "msg_" + ctx_.ids->hex(24)}, {"type", "message"},
                                       {"role", "assistant"}, {"model", ctx_.inv.model},
                                       {"content", {{{"type", "tool_use"}, {"id", id}, {"name", "Bash"},
                                                     {"input", {{"command", what}}}}}},
                                       {"stop_reason", nullptr},
                                       {"usage", {{"input_tokens", 1200}, {"output_tokens", 80}}}}},
                          {"parent_tool_use_id", nullptr}, {"session_id", session_},
                          {"uuid", ctx_.ids->uuid()}}));
    return id;
  }
  void assistant_text(const std::string& text) {
    emit((ojson{{"type", "assistant"},
                          {"message", {{"id", "msg_" + ctx_.ids->hex(24)}, {"type", "message"},
                                       {"role", "assistant"}, {"model", ctx_.inv.model},
                                       {"content", {{{"type", "text"}, {"text", text}}}},
                                       {"stop_reason", nullptr},
                                       {"usage", {{"input_tokens", 1200}, {"output_tokens", 80}}}}},
                          {"parent_tool_use_id", nullptr}, {"session_id", session_},
                          {"uuid", ctx_.ids->uuid()}}));
  }
  void result(bool is_error, const std::string& text, int http_status, const std::string& error) {
    millis elapsed = ctx_.clock->now() - start_;
    ojson r{{"type", "result"}, {"subtype", "success"}, {"is_error", is_error},
            {"duration_ms", elapsed}, {"duration_api_ms", elapsed}, {"num_turns", turns_ + 1},
            {"result", text}, {"session_id", session_}, {"total_cost_usd", 0.0}};
    if (http_status) r["api_error_status"] = http_status;
    if (!error.empty()) r["error"] = error;
    r["usage"] = {{"input_tokens", 12000}, {"output_tokens", 900}};
    r["uuid"] = ctx_.ids->uuid();
    emit((r));
  }

  // One stdout event; user and assistant messages also go to the transcript.
  void emit(const ojson& event) {
    line(out_, dump(event));
    std::string type = event.value("type", "");
    if (type != "user" && type != "assistant") return;
    ojson entry = event;
    entry["cwd"] = ctx_.workspace;
    entry["sessionId"] = session_;
    entry["timestamp"] = runtime::format_utc_iso(ctx_.clock->now());
    native_.write(dump(entry));
  }

  emit_context ctx_;
  std::ostream& out_;
  std::ostream& err_;
  side_file native_;
  std::string session_;
  millis start_ = 0;
  int turns_ = 0;
};

class agy_emitter final : public emitter {
public:
  agy_emitter(const emit_context& c, std::ostream& o, std::ostream& e) : ctx_(c), out_(o), err_(e) {
    if (!c.inv.log_file.empty()) log_.open(c.inv.log_file, write_errors_);
  }
  void begin() override {
    log("INFO", "agy cli started model=" + ctx_.inv.model + " print-timeout=8h cwd=" + ctx_.workspace);
    log("INFO", "conversation " + ctx_.ids->uuid() + " created");
  }
  void step(int index, const std::string& what) override {
    log("INFO", "tool call run_command: " + what);
    line(out_, "Step " + std::to_string(index) + ": " + what);
  }
  void tool_pending(const std::string& what) override { log("INFO", "tool call run_command: " + what); }
  void success(const std::string& summary) override {
    log("INFO", "request completed");
    line(out_, summary);
  }
  void failure(const failure_report& f) override {
    log("ERROR", f.message);
    line(err_, "Error: " + f.message);
  }
  std::vector<std::string> side_files() const override {
    if (log_.path().empty()) return {};
    return {log_.path()};
  }

private:
  void log(const char* level, const std::string& text) {
    log_.write(runtime::format_utc_iso(ctx_.clock->now()) + " " + level + " " + text);
  }
  emit_context ctx_;
  std::ostream& out_;
  std::ostream& err_;
  side_file log_;
};

class pi_emitter final : public emitter {
public:
  pi_emitter(const emit_context& c, std::ostream& o, std::ostream& e) : ctx_(c), out_(o), err_(e) {}

  void begin() override {
    millis now = ctx_.clock->now();
    std::string stamp = runtime::format_utc_iso(now);
    bool resume = !ctx_.inv.session_file.empty();
    if (resume) {
      load_parent(ctx_.inv.session_file);
      session_.open(ctx_.inv.session_file, write_errors_);
    } else {
      id_ = ctx_.inv.session_id.empty() ? ctx_.ids->uuid() : ctx_.inv.session_id;
      std::string dir = ctx_.inv.session_dir.empty() ? ctx_.workspace + "/.pi-sessions" : ctx_.inv.session_dir;
      std::string file_stamp = stamp;
      for (char& ch : file_stamp)
        if (ch == ':' || ch == '.') ch = '-';
      session_.open(dir + "/" + file_stamp + "_" + id_ + ".jsonl", write_errors_);
    }
    ojson header{{"type", "session"}, {"version", 3}, {"id", id_}, {"timestamp", stamp},
                 {"cwd", ctx_.workspace}};
    if (!resume) session_.write(dump(header));
    line(out_, dump(header));
    line(out_, dump(ojson{{"type", "agent_start"}}));
    line(out_, dump(ojson{{"type", "turn_start"}}));
    message({{"role", "user"}, {"content", {{{"type", "text"}, {"text", ctx_.inv.prompt}}}},
             {"timestamp", now}});
  }
  void step(int index, const std::string& what) override {
    std::string call = call_tool(what);
    line(out_, dump(ojson{{"type", "tool_execution_end"}, {"toolCallId", call}, {"toolName", "bash"},
                          {"result", {{"content", {{{"type", "text"}, {"text", "step " + std::to_string(index) + " ok"}}}}}},
                          {"isError", false}}));
    message({{"role", "toolResult"}, {"toolCallId", call}, {"toolName", "bash"},
             {"content", {{{"type", "text"}, {"text", "step " + std::to_string(index) + " ok"}}}},
             {"isError", false}, {"timestamp", ctx_.clock->now()}});
  }
  void tool_pending(const std::string& what) override { call_tool(what); }
  void success(const std::string& summary) override {
    message(assistant({{{"type", "text"}, {"text", summary}}}, "stop"));
    line(out_, dump(ojson{{"type", "turn_end"}}));
    line(out_, dump(ojson{{"type", "agent_end"}}));
  }
  void failure(const failure_report& f) override {
    ojson m = assistant(ojson::array(), "error");
    m["errorMessage"] = f.message;
    message(m);
    line(out_, dump(ojson{{"type", "agent_end"}}));
    line(err_, "Error: " + f.message);
  }
  std::vector<std::string> side_files() const override {
    if (session_.path().empty()) return {};
    return {session_.path()};
  }

private:
  // The id of the last entry of an existing session file, and its session id.
  void load_parent(const std::string& path) {
    auto text = runtime::read_file(path);
    if (!text) return;
    std::string last, first;
    std::size_t pos = 0;
    while (pos < text->size()) {
      std::size_t nl = text->find('\n', pos);
      std::string l = text->substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      if (!l.empty()) {
        if (first.empty()) first = l;
        last = l;
      }
      pos = nl == std::string::npos ? text->size() : nl + 1;
    }
    auto head = ojson::parse(first, nullptr, false);
    if (head.is_object() && head.contains("id") && head["id"].is_string()) id_ = head["id"];
    auto tail = ojson::parse(last, nullptr, false);
    if (tail.is_object() && tail.value("type", "") != "session" && tail.contains("id") && tail["id"].is_string())
      parent_ = tail["id"].get<std::string>();
  }
  ojson assistant(ojson content, const char* stop) {
    return {{"role", "assistant"}, {"content", std::move(content)}, {"api", "openai-completions"},
            {"provider", "iop"}, {"model", ctx_.inv.model},
            {"usage", {{"input", 1200}, {"output", 80}, {"cacheRead", 0}, {"cacheWrite", 0}}},
            {"stopReason", stop}, {"timestamp", ctx_.clock->now()}};
  }
  std::string call_tool(const std::string& what) {
    std::string call = "call_" + ctx_.ids->hex(16);
    message(assistant({{{"type", "toolCall"}, {"id", call}, {"name", "bash"},
                        {"arguments", {{"command", what}}}}},
                      "toolUse"));
    line(out_, dump(ojson{{"type", "tool_execution_start"}, {"toolCallId", call}, {"toolName", "bash"},
                          {"args", {{"command", what}}}}));
    return call;
  }
  // One session entry plus the JSON-mode message events.
  void message(const ojson& m) {
    std::string id = ctx_.ids->hex(8);
    ojson entry{{"type", "message"}, {"id", id}, {"parentId", parent_.empty() ? ojson(nullptr) : ojson(parent_)},
                {"timestamp", runtime::format_utc_iso(ctx_.clock->now())}, {"message", m}};
    session_.write(dump(entry));
    parent_ = id;
    line(out_, dump(ojson{{"type", "message_start"}, {"message", m}}));
    line(out_, dump(ojson{{"type", "message_end"}, {"message", m}}));
  }

  emit_context ctx_;
  std::ostream& out_;
  std::ostream& err_;
  side_file session_;
  std::string id_;
  std::string parent_;
};

class command_emitter final : public emitter {
public:
  command_emitter(std::ostream& o, std::ostream& e) : out_(o), err_(e) {}
  void begin() override { line(out_, "agent-sim: started"); }
  void step(int index, const std::string& what) override {
    line(out_, "step " + std::to_string(index) + ": " + what);
  }
  void tool_pending(const std::string& what) override { line(out_, "running: " + what); }
  void success(const std::string& summary) override { line(out_, summary); }
  void failure(const failure_report& f) override { line(err_, "error: " + f.message); }

private:
  std::ostream& out_;
  std::ostream& err_;
};

std::string with_retry(std::string msg, const action& a, millis resets_at) {
  if (a.retry_after_seconds) msg += "; retry after " + std::to_string(*a.retry_after_seconds) + "s";
  if (!a.resets_at.empty()) msg += "; resets at " + runtime::format_utc_iso(resets_at);
  return msg;
}

} // namespace

std::string id_source::uuid() {
  std::string h = hex(32);
  h[12] = '4';
  h[16] = "89ab"[rng_() % 4];
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" +
         h.substr(20, 12);
}

std::string id_source::hex(int digits) {
  static const char* const alphabet = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < digits; ++i) out.push_back(alphabet[rng_() % 16]);
  return out;
}

failure_report describe_failure(const action& a, const std::string& model, const std::string& workspace,
                                millis now) {
  failure_report f;
  f.kind = a.failure;
  millis resets = 0;
  if (!a.resets_at.empty()) {
    if (auto t = runtime::parse_utc_iso(a.resets_at)) resets = *t;
  } else if (a.retry_after_seconds) {
    resets = now + *a.retry_after_seconds * 1000LL;
  }
  std::string path = a.path;
  if (!path.empty() && path.front() != '/') path = workspace + "/" + path;
  switch (a.failure) {
    case failure_kind::rate_limit:
      f.http_status = 429;
      f.message = with_retry("HTTP 429 Too Many Requests: rate limit exceeded", a, resets);
      break;
    case failure_kind::resource_exhausted:
      f.http_status = 429;
      f.message = with_retry("RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).", a, resets);
      break;
    case failure_kind::quota_exceeded:
      f.http_status = 429;
      f.message = with_retry("You exceeded your current quota, please check your plan and billing details.", a, resets);
      break;
    case failure_kind::context_length:
      f.http_status = 400;
      f.message = "This model's maximum context length is 200000 tokens; the request used 231072 tokens. "
                  "Reduce the length of the messages.";
      break;
    case failure_kind::model_overloaded:
      f.http_status = 529;
      f.message = "HTTP 529 Overloaded: the model is overloaded, please try again later";
      break;
    case failure_kind::model_unavailable:
      f.message = "model \"" + model + "\" is unavailable: not found on this provider";
      break;
    case failure_kind::connection_refused:
      f.message = "provider iop request to /v1/chat/completions failed: dial tcp 127.0.0.1:8080: "
                  "connect: connection refused";
      break;
    case failure_kind::stream_disconnected:
      f.message = "stream disconnected before completion: backend connection failed during streaming request";
      break;
    case failure_kind::file_exists:
      f.message = "File already exists: " + path;
      break;
    case failure_kind::file_not_found:
      f.message = "No such file or directory: " + path;
      break;
    case failure_kind::error:
      f.message = "agent failed: unexpected error";
      break;
  }
  if (!a.message.empty()) f.message = a.message;
  if (f.http_status == 429 && resets == 0) resets = now + 300000;  // a real limit always resets
  f.resets_at = resets;
  return f;
}

std::unique_ptr<emitter> make_emitter(const emit_context& ctx, std::ostream& out, std::ostream& err) {
  switch (ctx.inv.as) {
    case persona::codex: return std::make_unique<codex_emitter>(ctx, out, err);
    case persona::claude: return std::make_unique<claude_emitter>(ctx, out, err);
    case persona::agy: return std::make_unique<agy_emitter>(ctx, out, err);
    case persona::pi: return std::make_unique<pi_emitter>(ctx, out, err);
    case persona::command: break;
  }
  return std::make_unique<command_emitter>(out, err);
}

} // namespace ad::agent_sim
