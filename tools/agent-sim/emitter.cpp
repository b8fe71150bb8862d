// The shared part of the emitters: ids, the generic failure report, launch
// refusals, local clock texts, and the agy and command agent emitters (the
// JSON CLIs are in codex_emitter.cpp, claude_emitter.cpp, pi_emitter.cpp).
#include "tools/agent-sim/emitter.hpp"

#include <cstdio>

#include "runtime/core/files.hpp"
#include "tools/agent-sim/emitter_support.hpp"

namespace ad::agent_sim {

namespace {

using namespace detail;
using runtime::millis;

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
  int failure(const failure_report& f) override {
    log("ERROR", f.message);
    line(err_, "Error: " + f.message);
    return 1;
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

class command_emitter final : public emitter {
public:
  command_emitter(std::ostream& o, std::ostream& e) : out_(o), err_(e) {}
  void begin() override { line(out_, "agent-sim: started"); }
  void step(int index, const std::string& what) override {
    line(out_, "step " + std::to_string(index) + ": " + what);
  }
  void tool_pending(const std::string& what) override { line(out_, "running: " + what); }
  void success(const std::string& summary) override { line(out_, summary); }
  int failure(const failure_report& f) override {
    line(err_, "error: " + f.message);
    return 1;
  }

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

std::string id_source::uuid_v7(millis now) {
  std::string h = hex(32);
  char ms[13];
  std::snprintf(ms, sizeof ms, "%012llx", static_cast<unsigned long long>(now) & 0xffffffffffffULL);
  h.replace(0, 12, ms);
  h[12] = '7';
  h[16] = "89ab"[rng_() % 4];
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" +
         h.substr(20, 12);
}

double id_source::fraction() { return static_cast<double>(rng_() >> 11) / static_cast<double>(1ULL << 53); }

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
    case failure_kind::usage_limit:
      f.http_status = 429;
      if (resets == 0) resets = now + 3600000;
      f.message = "Quota exceeded: usage limit reached; resets at " + runtime::format_utc_iso(resets);
      break;
    case failure_kind::root_refusal:
      f.message = "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons";
      break;
  }
  f.variant = a.variant;
  f.retry_after_seconds = a.retry_after_seconds;
  f.resets_scripted = !a.resets_at.empty();
  f.at = now;
  if (!a.message.empty()) {
    f.message = a.message;
    f.scripted_message = true;
  }
  if (f.http_status == 429 && resets == 0) resets = now + 300000;  // a real limit always resets
  f.resets_at = resets;
  return f;
}

runtime::token_usage overlay(const runtime::token_usage& base, const runtime::token_usage& over) {
  runtime::token_usage out = base;
  for (auto field : {&runtime::token_usage::input_tokens, &runtime::token_usage::output_tokens,
                     &runtime::token_usage::cache_read_tokens, &runtime::token_usage::cache_write_tokens,
                     &runtime::token_usage::reasoning_tokens})
    if (over.*field)
      out.*field = over.*field;
  if (over.cost_usd)
    out.cost_usd = over.cost_usd;
  return out;
}

std::optional<std::string> launch_refusal(const invocation& inv, bool pi_dispatcher_flavor,
                                          const action_list& actions) {
  if (inv.as == persona::pi && !pi_dispatcher_flavor && !inv.pi_dispatcher_options.empty()) {
    std::string names;
    for (const auto& o : inv.pi_dispatcher_options) names += (names.empty() ? "" : ", ") + o;
    return std::string(inv.pi_dispatcher_options.size() > 1 ? "Error: Unknown options: " : "Error: Unknown option: ") +
           names;
  }
  if (!actions.empty() && actions.front().kind == action_kind::fail &&
      actions.front().failure == failure_kind::root_refusal)
    return actions.front().message.empty()
               ? "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"
               : actions.front().message;
  return std::nullopt;
}

namespace detail {

std::string seconds_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", seconds);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s + "s";
}

namespace {

std::string two(int v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02d", v);
  return buf;
}

// "6:33 PM" / "6:06pm" / "6pm".
std::string clock_12h(const runtime::local_time_fields& f, bool upper, bool drop_zero_minutes) {
  int hour = f.hour % 12 == 0 ? 12 : f.hour % 12;
  bool pm = f.hour >= 12;
  std::string out = std::to_string(hour);
  if (!(drop_zero_minutes && f.minute == 0)) out += ":" + two(f.minute);
  if (upper) return out + (pm ? " PM" : " AM");
  return out + (pm ? "pm" : "am");
}

} // namespace

std::string local_file_stamp(millis t, const runtime::time_zone& zone) {
  auto f = zone.to_local(t);
  return std::to_string(f.year) + "-" + two(f.month) + "-" + two(f.day) + "T" + two(f.hour) + "-" + two(f.minute) +
         "-" + two(f.second);
}

std::string local_date_folder(millis t, const runtime::time_zone& zone) {
  auto f = zone.to_local(t);
  return std::to_string(f.year) + "/" + two(f.month) + "/" + two(f.day);
}

std::string codex_reset_text(millis reset, millis now, const runtime::time_zone& zone) {
  auto r = zone.to_local(reset);
  auto n = zone.to_local(now);
  std::string clock = clock_12h(r, true, false);
  if (r.year == n.year && r.month == n.month && r.day == n.day) return clock;
  static const char* const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  int d = r.day;
  const char* suffix = (d % 100 >= 11 && d % 100 <= 13) ? "th"
                       : d % 10 == 1                    ? "st"
                       : d % 10 == 2                    ? "nd"
                       : d % 10 == 3                    ? "rd"
                                                        : "th";
  return std::string(months[(r.month + 11) % 12]) + " " + std::to_string(d) + suffix + ", " +
         std::to_string(r.year) + " " + clock;
}

std::string claude_reset_text(millis reset, const runtime::time_zone& zone, const std::string& zone_name) {
  return clock_12h(zone.to_local(reset), false, true) + " (" + zone_name + ")";
}

double retry_after_or(const failure_report& f, double fallback) {
  return f.retry_after_seconds ? static_cast<double>(*f.retry_after_seconds) : fallback;
}

double try_again_in(const failure_report& f, double fallback) {
  if (f.retry_after_seconds) return static_cast<double>(*f.retry_after_seconds);
  if (f.resets_scripted) return f.resets_at > f.at ? static_cast<double>(f.resets_at - f.at) / 1000.0 : 0.0;
  return fallback;
}

} // namespace detail

std::unique_ptr<emitter> make_emitter(const emit_context& ctx, std::ostream& out, std::ostream& err) {
  switch (ctx.inv.as) {
    case persona::codex: return make_codex_emitter(ctx, out, err);
    case persona::claude: return make_claude_emitter(ctx, out, err);
    case persona::agy: return std::make_unique<agy_emitter>(ctx, out, err);
    case persona::pi: return make_pi_emitter(ctx, out, err);
    case persona::command: break;
  }
  return std::make_unique<command_emitter>(out, err);
}

} // namespace ad::agent_sim
