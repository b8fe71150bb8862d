// The simulator against the real CLIs: for every (CLI, failure kind) with a
// capture in tests/fixtures/realcli, the built agent-sim run with the
// capture's argv shape and a scenario scripting that failure, compared with
// the capture at the level of shapes (tests/support/cli_shapes.hpp): the
// exit code, the collapsed sequence of event names (streaming updates left
// out, retry cycles kept once), the keys of every event name both print,
// the typed fields and texts the dispatcher reads (codex's turn.failed and
// Reconnecting texts and its rollout's codex_error_info; claude's result,
// synthetic assistant error, api_retry lines and rate_limit_event; pi's
// last assistant stopReason/errorMessage, auto_retry_start/end and
// compaction), the usage the dispatcher reads from it, stderr, the native session file's name and entries, and
// the dispatcher's classification, which must equal the one
// tests/fixtures/realcli/expected.json gives the real run. A drift of the
// simulator from the captures fails here.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <regex>
#include <thread>

#include "runtime/agents/attempt_output.hpp"
#include "runtime/agents/cli_outcome.hpp"
#include "runtime/agents/failure_classifier.hpp"
#include "runtime/agents/native_sessions.hpp"
#include "runtime/agents/usage_reader.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "tests/support/cli_shapes.hpp"
#include "tests/support/temp_dir.hpp"
#include "tools/agent-sim/emitter.hpp"

namespace ad::agent_sim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

struct shape_case {
  std::string cli;      // codex | claude | pi
  std::string capture;  // tests/fixtures/realcli/<cli>/<capture>
  std::string actions;  // the worker's scenario actions
  std::vector<std::string> env = {};         // extra NAME=value
  std::vector<std::string> extra_args = {};  // before the prompt
  std::string fixed_time = "2026-12-01T17:18:00.000Z";
  int stop_after_lines = 0;  // SIGTERM once stdout has this many lines (a CLI that never ends)
};

std::string fail(const std::string& failure, const std::string& extra = "") {
  return R"([{"kind": "fail", "failure": ")" + failure + "\"" + extra + "}]";
}

const std::vector<shape_case>& cases() {
  static const std::vector<shape_case> all = {
    // codex exec --json
    {"codex", "success", R"([{"kind": "events", "count": 1}])"},
    {"codex", "rate_limit_429", fail("rate_limit")},
    {"codex", "rate_limit_429_retry_after_30", fail("rate_limit", R"(, "retry_after_seconds": 30)")},
    {"codex", "rate_limit_in_stream", fail("rate_limit", R"(, "variant": "in_stream")")},
    {"codex", "rate_limit_429_then_ok",
     R"([{"kind": "retried", "failure": "rate_limit"}, {"kind": "events", "count": 1}])"},
    {"codex", "insufficient_quota_429", fail("quota_exceeded")},
    {"codex", "usage_limit_429", fail("usage_limit", R"(, "resets_at": "2026-12-01T18:33:20Z")"), {"TZ=UTC"}},
    {"codex", "usage_limit_429_far", fail("usage_limit", R"(, "resets_at": "2026-12-04T18:33:20Z")"), {"TZ=UTC"}},
    {"codex", "usage_limit_429_TZ_Asia_Seoul", fail("usage_limit", R"(, "resets_at": "2026-12-01T18:33:20Z")"),
     {"TZ=Asia/Seoul"}, {}, "2026-12-01T17:26:14.000Z"},
    {"codex", "context_400", fail("context_length")},
    {"codex", "context_in_stream", fail("context_length")},
    {"codex", "model_not_found_404", fail("model_unavailable")},
    {"codex", "overloaded_503", fail("model_overloaded")},
    {"codex", "overloaded_in_stream", fail("model_overloaded", R"(, "variant": "capacity")")},
    {"codex", "overloaded_503_plain", fail("model_overloaded", R"(, "variant": "503")")},
    {"codex", "overloaded_529", fail("model_overloaded", R"(, "variant": "529")")},
    {"codex", "stream_cut", fail("stream_disconnected")},
    {"codex", "dropped_before_response", fail("stream_disconnected", R"(, "variant": "dropped")")},
    {"codex", "stream_cut_then_ok",
     R"([{"kind": "retried", "failure": "stream_disconnected"}, {"kind": "events", "count": 1}])"},
    {"codex", "refused", fail("connection_refused"), {}, {}, "2026-12-01T17:18:00.000Z", 8},
    // claude -p --output-format stream-json --verbose
    {"claude", "success_write", R"([{"kind": "events", "count": 1}])"},
    {"claude", "rate_limit_429", fail("rate_limit")},
    {"claude", "rate_limit_429_retry_after_3600", fail("rate_limit", R"(, "retry_after_seconds": 3600)")},
    {"claude", "rate_limit_429_then_ok", R"([{"kind": "retried", "failure": "rate_limit"}])"},
    {"claude", "rate_limit_429_unified", fail("quota_exceeded")},
    {"claude", "rate_limit_429_unified_short", fail("quota_exceeded", R"(, "retry_after_seconds": 2)")},
    {"claude", "rate_limit_429_unified_oauth", fail("usage_limit", R"(, "resets_at": "2026-12-01T18:06:02Z")"),
     {"TZ=UTC"}},
    {"claude", "prompt_too_long", fail("context_length")},
    {"claude", "model_not_found_404", fail("model_unavailable")},
    {"claude", "overloaded_529", fail("model_overloaded")},
    {"claude", "connection_refused", fail("connection_refused")},
    {"claude", "stream_cut", fail("stream_disconnected")},
    {"claude", "stream_cut_then_ok", R"([{"kind": "retried", "failure": "stream_disconnected"}])"},
    {"claude", "root_no_sandbox", fail("root_refusal")},
    // pi -p --mode json
    {"pi", "success_write", R"([{"kind": "events", "count": 1}])"},
    {"pi", "long_tool_sleep", R"([{"kind": "events", "count": 1}])"},
    {"pi", "rate_limit_429", fail("rate_limit")},
    {"pi", "rate_limit_429_then_ok",
     R"([{"kind": "retried", "failure": "rate_limit"}, {"kind": "events", "count": 1}])"},
    {"pi", "context_length_400", fail("context_length")},
    {"pi", "context_length_after_tool", R"([{"kind": "events", "count": 1}, {"kind": "fail", "failure": "context_length"}])"},
    {"pi", "model_not_found_404", fail("model_unavailable")},
    {"pi", "overloaded_503", fail("model_overloaded")},
    {"pi", "connection_refused", fail("connection_refused")},
    {"pi", "stream_cut", fail("stream_disconnected")},
    {"pi", "stream_cut_then_ok",
     R"([{"kind": "retried", "failure": "stream_disconnected"}, {"kind": "events", "count": 1}])"},
    {"pi", "dispatcher_argv", R"([{"kind": "events", "count": 1}])", {}, {"--approve", "--session-id",
                                                                          "6f1c2d3e-4b5a-4c6d-8e7f-90a1b2c3d4e5"}},
  };
  return all;
}

// ---- running the built simulator ---------------------------------------------

struct sim_run {
  bool signaled = false;
  int exit_code = -1;  // -1 when killed by a signal (as capture_exit_code reads a timeout)
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  auto t = runtime::read_file(p, 64 << 20);
  return t.is_ok() ? *t : "";
}

std::size_t lines_in(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

sim_run run_sim(const std::vector<std::string>& argv, const std::vector<std::string>& env, const fs::path& cwd,
                const fs::path& scratch, int stop_after_lines) {
  static int n = 0;
  fs::path out = scratch / ("out" + std::to_string(++n)), err = scratch / ("err" + std::to_string(n));
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    if (::chdir(cwd.c_str()) != 0) ::_exit(126);
    int in = ::open("/dev/null", O_RDONLY);
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(in, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    ::execve(cargv[0], cargv.data(), cenv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  int status = 0;
  const int keep_lines = stop_after_lines;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  for (;;) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (stop_after_lines > 0 && lines_in(slurp(out)) >= static_cast<std::size_t>(stop_after_lines)) {
      ::kill(pid, SIGTERM);
      stop_after_lines = 0;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "agent-sim did not end in 60 s: " << argv.front();
      ::kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(5ms);
  }
  sim_run r;
  r.signaled = WIFSIGNALED(status);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  // A CLI that never ends prints on until the SIGTERM lands: on a busy
  // machine that may be a line or two past the count. What is compared is
  // the lines up to the count, as the capture has them.
  if (keep_lines > 0) {
    std::size_t end = 0;
    for (int i = 0; i < keep_lines && end != std::string::npos; ++i) {
      auto nl = r.out.find('\n', end);
      end = nl == std::string::npos ? nl : nl + 1;
    }
    if (end != std::string::npos)
      r.out.resize(end);
  }
  return r;
}

// ---- what is compared ----------------------------------------------------------

// Ids the simulator makes up itself where the capture has the mock's.
std::string ids_normalized(std::string text) {
  static const std::regex port(R"(127\.0\.0\.1:\d+)");
  static const std::regex request(R"(request id: [A-Za-z0-9_]+)");
  static const std::regex org_id(R"(organization org-[A-Za-z0-9]+)");
  static const std::regex org_uuid(R"(organization \([0-9a-f-]{36}\))");
  static const std::regex model(R"(Rate limit reached for \S+ in)");
  text = std::regex_replace(text, port, "127.0.0.1:PORT");
  text = std::regex_replace(text, request, "request id: ID");
  text = std::regex_replace(text, org_id, "organization org-ID");
  text = std::regex_replace(text, org_uuid, "organization (ORG)");
  return std::regex_replace(text, model, "Rate limit reached for MODEL in");
}

json text_of(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return "<absent>";
  if (it->is_string()) return ids_normalized(it->get<std::string>());
  return *it;
}

json typed_key(const std::string& cli, const std::vector<json>& events) {
  json key = json::object();
  if (cli == "codex") {
    key["failed"] = nullptr;
    key["reconnecting"] = json::array();
    for (const auto& e : events) {
      std::string type = e.value("type", "");
      if (type == "turn.failed") key["failed"] = text_of(e["error"], "message");
      if (type == "error" && e.value("message", "").rfind("Reconnecting", 0) == 0)
        key["reconnecting"].push_back(text_of(e, "message"));
      if (type == "turn.completed") key["completed"] = true;
    }
  } else if (cli == "claude") {
    json retries = json::array();
    for (const auto& e : events) {
      std::string type = e.value("type", "");
      if (type == "system" && e.value("subtype", "") == "api_retry") {
        retries.push_back({e["attempt"], e["max_retries"], e["error_status"], e["error"]});
      } else if (type == "assistant" && e["message"].value("model", "") == "<synthetic>") {
        json s = json::object();
        for (const char* k : {"error", "api_error_status", "api_error_type", "api_error", "is_api_error_message"})
          s[k] = text_of(e, k);
        s["text"] = text_of(e["message"]["content"][0], "text");
        key["synthetic"] = s;
      } else if (type == "rate_limit_event") {
        const json& info = e["rate_limit_info"];
        key["rate_limit_event"] = {info["status"], info["resetsAt"], info["rateLimitType"]};
      } else if (type == "result") {
        json r = json::object();
        for (const char* k : {"subtype", "is_error", "api_error_status", "api_error_type", "api_error",
                              "terminal_reason", "stop_reason"})
          r[k] = text_of(e, k);
        if (e.value("is_error", false)) r["result"] = text_of(e, "result");
        key["result"] = r;
      }
    }
    key["api_retry"] = retries;
  } else {
    json starts = json::array();
    for (const auto& e : events) {
      std::string type = e.value("type", "");
      if (type == "message_end" && e["message"].value("role", "") == "assistant")
        key["last_assistant"] = {text_of(e["message"], "stopReason"), text_of(e["message"], "errorMessage")};
      if (type == "auto_retry_start")
        starts.push_back({e["attempt"], e["maxAttempts"], e["delayMs"], text_of(e, "errorMessage")});
      if (type == "auto_retry_end")
        key["auto_retry_end"] = {text_of(e, "success"), text_of(e, "attempt"), text_of(e, "finalError")};
      if (type == "compaction_start") key["compaction_start"] = text_of(e, "reason");
    }
    key["auto_retry_start"] = starts;
  }
  return key;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

const std::set<std::string> streaming = {"message_update", "tool_execution_update"};

// The dispatcher's verdict on a run, as tests/runtime/agents/realcli_classification_test.cpp
// reaches it for a capture.
runtime::failure_verdict classify(const std::string& cli, const sim_run& r, const std::optional<fs::path>& rollout,
                                  runtime::millis observed_at, int32_t utc_offset_s) {
  auto kind = *runtime::parse_adapter_kind(cli);
  runtime::attempt_output output(kind, runtime::review_guard::off);
  std::istringstream out(r.out), err(r.err);
  for (std::string line; std::getline(out, line);) output.feed(runtime::output_channel::out, line);
  for (std::string line; std::getline(err, line);) output.feed(runtime::output_channel::err, line);
  if (kind == runtime::adapter_kind::codex && output.outcome().end == runtime::cli_end::failed && rollout)
    if (auto e = runtime::last_codex_rollout_error(slurp(*rollout)))
      output.add_diagnostic({"codex:rollout", runtime::dump_json(json{{"code", e->code}, {"message", e->message}})});
  runtime::failure_inputs in;
  if (r.signaled) {
    in.exit.ended = runtime::agent_exit_status::how::signaled;
    in.exit.signal = SIGTERM;
  } else {
    in.exit.code = r.exit_code;
  }
  in.kind = kind;
  in.outcome = output.outcome();
  in.diagnostics_newest_first = output.diagnostics().newest_first();
  in.observed_at = observed_at;
  in.utc_offset_s = utc_offset_s;
  return runtime::classify_attempt(in, runtime::default_compiled_failure_patterns());
}

std::optional<fs::path> first_file_under(const fs::path& dir, std::string_view suffix) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return std::nullopt;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().string().ends_with(suffix)) return e.path();
  return std::nullopt;
}

std::vector<std::string> entry_types(const fs::path& file) {
  std::vector<std::string> out;
  for (const auto& e : test::json_lines(slurp(file))) {
    std::string t = e.value("type", "?");
    if (t == "message") t += "/" + e["message"].value("role", "");
    if (out.empty() || out.back() != t) out.push_back(t);
  }
  return out;
}

// The usage the dispatcher's reader reads from the simulated run and from
// the capture: whether the CLI closed it, which fields it reported and, but
// where the captures' mock served other figures than the simulator's
// defaults (claude success_write: that mock counted 26 output tokens per
// answer), their values.
void expect_same_usage(const shape_case& c, const std::vector<json>& got, const std::vector<json>& want) {
  auto format = runtime::parse_usage_format(c.cli);
  ASSERT_TRUE(format.is_ok());
  runtime::usage_reader sim(*format), real(*format);
  for (const auto& e : got) sim.on_event(e);
  for (const auto& e : want) real.on_event(e);
  EXPECT_EQ(sim.closed(), real.closed());
  auto a = sim.so_far(), b = real.so_far();
  json ja = runtime::usage_to_json(a), jb = runtime::usage_to_json(b);
  std::set<std::string> fields_a, fields_b;
  for (const auto& [k, v] : ja.items()) fields_a.insert(k);
  for (const auto& [k, v] : jb.items()) fields_b.insert(k);
  EXPECT_EQ(json(fields_a).dump(), json(fields_b).dump()) << "the usage fields reported";
  if (c.cli == "claude" && c.capture == "success_write") return;
  EXPECT_EQ(a.input_tokens, b.input_tokens);
  EXPECT_EQ(a.output_tokens, b.output_tokens);
  EXPECT_EQ(a.cache_read_tokens, b.cache_read_tokens);
  EXPECT_EQ(a.cache_write_tokens, b.cache_write_tokens);
  EXPECT_EQ(a.reasoning_tokens, b.reasoning_tokens);
  if (a.cost_usd && b.cost_usd) EXPECT_NEAR(*a.cost_usd, *b.cost_usd, 1e-12);
}

// ---- the test --------------------------------------------------------------------

constexpr std::string_view shape_plan_text = R"(<!-- task=auth/02+01_api plan=1 tag=t1 -->
# Plan
## Modified Files Summary
| File | Change |
|---|---|
| `src/api.cpp` | add |
)";

class realcli_shape : public ::testing::TestWithParam<size_t> {
protected:
  void SetUp() override {
    ws_ = tmp_.path() / "ws";
    plan_ = tmp_.write("ws/agent-task/auth/02+01_api/PLAN-cloud-G05.md", shape_plan_text);
    tmp_.write("ws/agent-task/auth/02+01_api/CODE_REVIEW-cloud-G05.md", "# Review\n## Implementation Checklist\n- [ ] api\n");
    home_ = tmp_.path() / "home";
    fs::create_directories(home_);
  }

  std::vector<std::string> argv_for(const shape_case& c, const std::string& prompt) const {
    fs::path bin = test::binary_dir() / "sim-bin" / c.cli;
    std::vector<std::string> argv;
    if (c.cli == "codex")
      argv = {bin.string(), "exec", "--json", "-C", ws_.string(), "-m", "mock-model", "-c",
              "model_reasoning_effort=\"high\"", "--dangerously-bypass-approvals-and-sandbox"};
    else if (c.cli == "claude")
      argv = {bin.string(), "-p", "--output-format", "stream-json", "--verbose", "--session-id",
              "c71c6168-87e7-4add-b7f8-31c859eddcf5", "--model", "claude-opus-4-8", "--effort", "high",
              "--dangerously-skip-permissions"};
    else
      argv = {bin.string(), "-p", "--mode", "json", "--provider", "iop", "--model", "laguna-s", "--thinking", "high",
              "--session-dir", (tmp_.path() / "pi-sessions").string()};
    argv.insert(argv.end(), c.extra_args.begin(), c.extra_args.end());
    argv.push_back(prompt);
    return argv;
  }

  std::vector<std::string> env_for(const shape_case& c, const fs::path& scenario) const {
    std::vector<std::string> env{"PATH=/usr/bin:/bin",
                                 "HOME=" + home_.string(),
                                 "AGENT_SIM_SCENARIO=" + scenario.string(),
                                 "AGENT_SIM_NATIVE_SESSIONS=1",
                                 "AGENT_SIM_FIXED_TIME=" + c.fixed_time,
                                 "AGENT_SIM_SEED=5",
                                 "AGENT_SIM_TIME_SCALE=0.001",
                                 "OPENAI_BASE_URL=http://127.0.0.1:18101/v1",
                                 "ANTHROPIC_BASE_URL=http://127.0.0.1:18214",
                                 "ANTHROPIC_API_KEY=sk-ant-api03-sim"};
    bool tz = false;
    for (const auto& e : c.env) tz = tz || e.rfind("TZ=", 0) == 0;
    if (!tz) env.push_back("TZ=UTC");
    env.insert(env.end(), c.env.begin(), c.env.end());
    return env;
  }

  test::temp_dir tmp_;
  fs::path ws_, plan_, home_;
};

TEST_P(realcli_shape, the_simulator_prints_what_the_real_cli_printed) {
  const shape_case& c = cases()[GetParam()];
  SCOPED_TRACE(c.cli + "/" + c.capture);
  fs::path dir = test::capture_dir(c.cli, c.capture);
  ASSERT_TRUE(fs::exists(dir / "stdout.jsonl")) << dir;
  fs::path scenario = tmp_.write("scenario.json", R"({"defaults": {"worker": )" + c.actions + "}}");
  auto r = run_sim(argv_for(c, "Read " + plan_.string() + " and complete the task."), env_for(c, scenario), ws_,
                   tmp_.path(), c.stop_after_lines);

  // Exit code: the CLI's own, or killed by the signal that stopped it.
  EXPECT_EQ(r.exit_code, test::capture_exit_code(dir)) << r.err;

  // The events: names in order, then the keys of each name both print.
  auto got = test::json_lines(r.out);
  auto want = test::json_lines(test::read_all(dir / "stdout.jsonl"));
  EXPECT_EQ(joined(test::collapsed_names(c.cli, got, streaming)), joined(test::collapsed_names(c.cli, want, streaming)));
  auto got_keys = test::event_keys(c.cli, got);
  auto want_keys = test::event_keys(c.cli, want);
  for (const auto& [name, keys] : want_keys) {
    auto it = got_keys.find(name);
    if (it == got_keys.end()) continue;  // the name sequence already says it is missing
    EXPECT_EQ(json(it->second).dump(), json(keys).dump()) << "keys of " << name;
  }
  for (const auto& [name, keys] : got_keys)
    EXPECT_TRUE(want_keys.count(name) || streaming.count(name)) << "the real " << c.cli << " never printed " << name;

  // The typed fields and texts the dispatcher reads.
  EXPECT_EQ(typed_key(c.cli, got).dump(1), typed_key(c.cli, want).dump(1));
  expect_same_usage(c, got, want);

  // stderr: codex's stdin notice; pi and claude print nothing but a refusal.
  std::string want_err = test::read_all(dir / "stderr.txt");
  if (c.cli == "codex") {
    EXPECT_NE(want_err.find("Reading additional input from stdin..."), std::string::npos);
    EXPECT_EQ(r.err, "Reading additional input from stdin...\n");
  } else {
    EXPECT_EQ(r.err, want_err);
  }

  // The native session file.
  std::optional<fs::path> rollout;
  if (c.cli == "codex" && fs::exists(dir / "rollout")) {
    static const std::regex name(R"(rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-([0-9a-f-]{36})\.jsonl)");
    auto real = first_file_under(dir / "rollout", ".jsonl");
    ASSERT_TRUE(real);
    EXPECT_TRUE(std::regex_match(real->filename().string(), name)) << *real;
    rollout = first_file_under(home_ / ".codex/sessions", ".jsonl");
    ASSERT_TRUE(rollout) << "no rollout under " << home_ / ".codex/sessions";
    std::smatch m;
    std::string file = rollout->filename().string();
    ASSERT_TRUE(std::regex_match(file, m, name)) << file;
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(m[1].str(), got.front().value("thread_id", ""));
    auto meta = test::json_lines(slurp(*rollout));
    ASSERT_FALSE(meta.empty());
    EXPECT_EQ(meta.front()["type"], "session_meta");
    EXPECT_EQ(meta.front()["payload"]["id"], m[1].str());
    auto real_err = runtime::last_codex_rollout_error(slurp(*real));
    auto sim_err = runtime::last_codex_rollout_error(slurp(*rollout));
    ASSERT_EQ(real_err.has_value(), sim_err.has_value());
    if (real_err) {
      EXPECT_EQ(sim_err->code, real_err->code);
      EXPECT_EQ(ids_normalized(sim_err->message), ids_normalized(real_err->message));
    }
    // The stamp is the local time the CLI started at.
    if (c.capture == "usage_limit_429_TZ_Asia_Seoul") EXPECT_EQ(file.substr(0, 27), "rollout-2026-12-02T02-26-14");
  }
  if (c.cli == "claude" && !got.empty()) {
    fs::path transcript =
        runtime::claude_session_path(home_ / ".claude/projects", ws_, "c71c6168-87e7-4add-b7f8-31c859eddcf5");
    EXPECT_TRUE(fs::is_regular_file(transcript)) << transcript;
    // The folder follows the rule the capture's folder shows for its cwd.
    auto real = first_file_under(dir / "transcripts/projects", ".jsonl");
    ASSERT_TRUE(real);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(real->parent_path().filename().string(), runtime::claude_project_folder(want.front().value("cwd", "")));
    EXPECT_EQ(real->stem().string(), want.front().value("session_id", ""));
    // Every transcript entry the dispatcher could follow names the session.
    for (const auto& e : test::json_lines(slurp(transcript)))
      EXPECT_EQ(e.value("sessionId", ""), "c71c6168-87e7-4add-b7f8-31c859eddcf5") << e.dump();
  }
  if (c.cli == "pi" && fs::exists(dir / "sessions")) {
    static const std::regex name(R"(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z_([0-9a-f-]{36})\.jsonl)");
    auto real = first_file_under(dir / "sessions", ".jsonl");
    ASSERT_TRUE(real);
    EXPECT_TRUE(std::regex_match(real->filename().string(), name)) << *real;
    auto sim = first_file_under(tmp_.path() / "pi-sessions", ".jsonl");
    if (got.empty()) {
      EXPECT_FALSE(sim) << "a refused pi writes no session";
    } else {
      ASSERT_TRUE(sim);
      std::smatch m;
      std::string file = sim->filename().string();
      ASSERT_TRUE(std::regex_match(file, m, name)) << file;
      EXPECT_EQ(m[1].str(), got.front().value("id", ""));
      EXPECT_EQ(m[1].str().substr(14, 1), "7") << "a uuid v7";
      EXPECT_EQ(joined(entry_types(*sim)), joined(entry_types(*real)));
    }
  }

  // The dispatcher judges the simulated run as it judges the real one.
  auto manifest = runtime::parse_json(test::read_all(test::source_dir() / "tests/fixtures/realcli/expected.json"),
                                      "expected.json");
  ASSERT_TRUE(manifest.is_ok());
  runtime::millis observed_at = *runtime::parse_utc_iso((*manifest)["observed_at"].get<std::string>());
  for (const auto& e : (*manifest)["cases"]) {
    if (e["cli"] != c.cli || e["scenario"] != c.capture) continue;
    auto v = classify(c.cli, r, rollout, observed_at, e.value("utc_offset_s", 0));
    EXPECT_EQ(v.failure_class, e["class"].get<std::string>()) << v.evidence_origin << ": " << v.evidence;
    if (e.contains("origin")) {
      EXPECT_EQ(v.evidence_origin, e["origin"].get<std::string>());
    }
    if (e.contains("reset_at")) {
      ASSERT_TRUE(v.reset_at.has_value()) << v.evidence;
      EXPECT_EQ(runtime::format_utc_iso(*v.reset_at), e["reset_at"].get<std::string>());
    } else if (e.contains("reset_after_ms")) {
      ASSERT_TRUE(v.reset_at.has_value()) << v.evidence;
      EXPECT_EQ(*v.reset_at - observed_at, e["reset_after_ms"].get<int64_t>());
    } else {
      EXPECT_FALSE(v.reset_at.has_value()) << runtime::format_utc_iso(*v.reset_at);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(every_capture, realcli_shape, ::testing::Range<size_t>(0, cases().size()),
                         [](const auto& info) {
                           const auto& c = cases()[info.param];
                           return c.cli + "_" + c.capture;
                         });

TEST(realcli_shape_cases, cover_every_failure_kind_each_cli_has_a_capture_of) {
  std::map<std::string, std::set<std::string>> covered;
  for (const auto& c : cases()) {
    auto doc = runtime::parse_json(c.actions, "actions");
    ASSERT_TRUE(doc.is_ok());
    for (const auto& a : *doc)
      if (a.contains("failure")) covered[c.cli].insert(a["failure"].get<std::string>());
  }
  std::set<std::string> provider = {"rate_limit", "context_length", "model_overloaded", "model_unavailable",
                                    "connection_refused", "stream_disconnected"};
  for (const char* cli : {"codex", "claude", "pi"})
    for (const auto& k : provider) EXPECT_TRUE(covered[cli].count(k)) << cli << " " << k;
  EXPECT_TRUE(covered["codex"].count("quota_exceeded") && covered["codex"].count("usage_limit"));
  EXPECT_TRUE(covered["claude"].count("quota_exceeded") && covered["claude"].count("usage_limit") &&
              covered["claude"].count("root_refusal"));
}

// The resumed pi session (resume_session): the first run's file, appended to.
TEST(realcli_shape_pi, a_resumed_session_continues_the_file_as_the_real_pi_does) {
  test::temp_dir tmp;
  fs::path ws = tmp.path() / "ws";
  fs::path plan = tmp.write("ws/agent-task/auth/02+01_api/PLAN-cloud-G05.md", shape_plan_text);
  tmp.write("ws/agent-task/auth/02+01_api/CODE_REVIEW-cloud-G05.md", "# Review\n## Implementation Checklist\n- [ ] api\n");
  fs::path scenario = tmp.write("scenario.json", R"({"defaults": {"worker": [{"kind": "events", "count": 1}]}})");
  fs::path sessions = tmp.path() / "pi-sessions";
  std::vector<std::string> env{"PATH=/usr/bin:/bin", "HOME=" + tmp.path().string(),
                               "AGENT_SIM_SCENARIO=" + scenario.string(), "AGENT_SIM_SEED=3",
                               "AGENT_SIM_FIXED_TIME=2026-12-01T17:16:05.421Z"};
  std::string pi = (test::binary_dir() / "sim-bin/pi").string();
  auto first = run_sim({pi, "-p", "--mode", "json", "--provider", "iop", "--model", "laguna-s", "--thinking", "high",
                        "--session-dir", sessions.string(), "Read " + plan.string() + " and complete the task."},
                       env, ws, tmp.path(), 0);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto file = first_file_under(sessions, ".jsonl");
  ASSERT_TRUE(file);
  auto before = test::json_lines(slurp(*file)).size();
  auto r = run_sim({pi, "-p", "--mode", "json", "--provider", "iop", "--model", "laguna-s", "--thinking", "high",
                    "--session", file->string(), "--session-dir", sessions.string(),
                    "Continue this session and complete the current task."},
                   env, ws, tmp.path(), 0);
  fs::path dir = test::capture_dir("pi", "resume_session");
  EXPECT_EQ(r.exit_code, test::capture_exit_code(dir)) << r.err;
  auto got = test::json_lines(r.out);
  auto want = test::json_lines(test::read_all(dir / "stdout.jsonl"));
  EXPECT_EQ(joined(test::collapsed_names("pi", got, streaming)), joined(test::collapsed_names("pi", want, streaming)));
  EXPECT_EQ(typed_key("pi", got).dump(1), typed_key("pi", want).dump(1));
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.front(), test::json_lines(slurp(*file)).front()) << "the session event is the file's header";
  EXPECT_EQ(std::distance(fs::directory_iterator(sessions), fs::directory_iterator()), 1);
  auto entries = test::json_lines(slurp(*file));
  ASSERT_GT(entries.size(), before);
  EXPECT_EQ(entries[before]["parentId"], entries[before - 1]["id"]);
  EXPECT_EQ(entries[before]["message"]["content"][0]["text"], "Continue this session and complete the current task.");
}

// pi as the original dispatcher built it (AGENT_SIM_PI_FLAVOR=dispatcher)
// takes --approve and --session-id; the public one refuses the resume argv too.
TEST(realcli_shape_pi, the_dispatcher_flavor_takes_the_options_the_public_pi_refuses) {
  test::temp_dir tmp;
  fs::path ws = tmp.path() / "ws";
  fs::path plan = tmp.write("ws/agent-task/auth/02+01_api/PLAN-cloud-G05.md", shape_plan_text);
  tmp.write("ws/agent-task/auth/02+01_api/CODE_REVIEW-cloud-G05.md", "# Review\n## Implementation Checklist\n- [ ] api\n");
  fs::path sessions = tmp.path() / "pi-sessions";
  std::string pi = (test::binary_dir() / "sim-bin/pi").string();
  std::vector<std::string> env{"PATH=/usr/bin:/bin", "HOME=" + tmp.path().string()};
  auto refused = run_sim({pi, "-p", "--mode", "json", "--approve", "--provider", "iop", "--model", "laguna-s",
                          "--session", (sessions / "s.jsonl").string(), "--session-dir", sessions.string(),
                          "Continue this session and complete the current task."},
                         env, ws, tmp.path(), 0);
  fs::path dir = test::capture_dir("pi", "dispatcher_resume_argv");
  EXPECT_EQ(refused.exit_code, test::capture_exit_code(dir));
  EXPECT_EQ(refused.err, test::read_all(dir / "stderr.txt"));
  EXPECT_EQ(refused.out, "");
  env.push_back("AGENT_SIM_PI_FLAVOR=dispatcher");
  auto taken = run_sim({pi, "-p", "--mode", "json", "--approve", "--provider", "iop", "--model", "laguna-s",
                        "--session-id", "6f1c2d3e-4b5a-4c6d-8e7f-90a1b2c3d4e5", "--session-dir", sessions.string(),
                        "Read " + plan.string() + " and complete the task."},
                       env, ws, tmp.path(), 0);
  EXPECT_EQ(taken.exit_code, 0) << taken.err;
  auto events = test::json_lines(taken.out);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front()["id"], "6f1c2d3e-4b5a-4c6d-8e7f-90a1b2c3d4e5");
  auto file = first_file_under(sessions, ".jsonl");
  ASSERT_TRUE(file);
  EXPECT_TRUE(file->filename().string().ends_with("_6f1c2d3e-4b5a-4c6d-8e7f-90a1b2c3d4e5.jsonl")) << *file;
}

// ---- the waits, against the captures' timelines -----------------------------------

// The waits an emitter asks for while it reports `f`, stopping a CLI that
// never ends after `limit` of them.
std::vector<double> waits_of(persona p, failure_kind kind, const std::string& variant = "",
                             std::optional<int> retry_after = std::nullopt, std::size_t limit = 30) {
  runtime::manual_clock clock(1796145462000);
  id_source ids(1);
  invocation inv;
  inv.as = p;
  inv.model = "mock-model";
  inv.prompt = "p";
  std::vector<double> waits;
  emit_context ctx{inv, "/ws", &clock, &ids, {}, [&](double s) {
                     waits.push_back(s);
                     return waits.size() < limit;
                   }};
  std::ostringstream out, err;
  auto e = make_emitter(ctx, out, err);
  e->begin();
  action a;
  a.kind = action_kind::fail;
  a.failure = kind;
  a.variant = variant;
  a.retry_after_seconds = retry_after;
  e->failure(describe_failure(a, inv.model, "/ws", clock.now()));
  return waits;
}

// The seconds between codex's turn.started and each later error line of a
// capture's timeline ("  3.848 out {json}").
std::vector<double> codex_gaps(const std::string& capture) {
  std::vector<double> gaps;
  double last = -1;
  std::istringstream in(test::read_all(test::capture_dir("codex", capture) / "timeline.txt"));
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    double t = 0;
    std::string channel;
    fields >> t >> channel;
    if (channel != "out") continue;
    if (line.find("\"turn.started\"") != std::string::npos) last = t;
    if (line.find("\"type\":\"error\"") != std::string::npos && last >= 0) {
      gaps.push_back(t - last);
      last = t;
    }
  }
  return gaps;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 0.1 + 0.05 * want[i]) << "wait " << i;
}

TEST(realcli_timing, codex_waits_as_long_as_the_real_one_between_its_lines) {
  expect_close(waits_of(persona::codex, failure_kind::rate_limit), codex_gaps("rate_limit_429"));
  expect_close(waits_of(persona::codex, failure_kind::rate_limit, "", 30), codex_gaps("rate_limit_429_retry_after_30"));
  expect_close(waits_of(persona::codex, failure_kind::rate_limit, "in_stream"), codex_gaps("rate_limit_in_stream"));
  expect_close(waits_of(persona::codex, failure_kind::stream_disconnected), codex_gaps("stream_cut"));
  expect_close(waits_of(persona::codex, failure_kind::stream_disconnected, "dropped"),
               codex_gaps("dropped_before_response"));
  expect_close(waits_of(persona::codex, failure_kind::model_overloaded), codex_gaps("overloaded_503"));
  expect_close(waits_of(persona::codex, failure_kind::model_overloaded, "503"), codex_gaps("overloaded_503_plain"));
  expect_close(waits_of(persona::codex, failure_kind::model_overloaded, "529"), codex_gaps("overloaded_529"));
  // Waiting for the network: growing gaps, then about a minute, forever.
  expect_close(waits_of(persona::codex, failure_kind::connection_refused, "", std::nullopt, 5), codex_gaps("refused"));
  auto gaps = codex_gaps("refused_1200s");
  ASSERT_GE(gaps.size(), 19u);
  expect_close(waits_of(persona::codex, failure_kind::connection_refused, "", std::nullopt, gaps.size()), gaps);
}

TEST(realcli_timing, pi_waits_the_delay_its_auto_retry_start_announces) {
  EXPECT_EQ(waits_of(persona::pi, failure_kind::stream_disconnected), (std::vector<double>{2, 4, 8}));
  // The capture: each agent_start of a retry follows its auto_retry_start by delayMs.
  std::vector<double> gaps;
  double announced = -1;
  std::istringstream in(test::read_all(test::capture_dir("pi", "stream_cut") / "timeline.jsonl"));
  for (std::string line; std::getline(in, line);) {
    auto j = json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    auto event = json::parse(j.value("line", ""), nullptr, false);
    if (!event.is_object()) continue;
    if (event.value("type", "") == "auto_retry_start") {
      announced = j.value("t_s", 0.0);
      EXPECT_EQ(event["delayMs"].get<int>(), 2000 << event["attempt"].get<int>() >> 1);
    } else if (event.value("type", "") == "agent_start" && announced >= 0) {
      gaps.push_back(j.value("t_s", 0.0) - announced);
      announced = -1;
    }
  }
  expect_close(waits_of(persona::pi, failure_kind::stream_disconnected), gaps);
}

TEST(realcli_timing, claude_retry_delays_follow_the_rule_the_captures_show) {
  // 500 ms doubling to 32 s, at least the retry-after, plus up to a quarter.
  auto fits = [](const std::vector<json>& events, double retry_after_s) {
    for (const auto& e : events) {
      if (e.value("subtype", "") != "api_retry") continue;
      int n = e["attempt"];
      double base = std::max(std::min(500.0 * std::pow(2.0, n - 1), 32000.0), retry_after_s * 1000);
      double delay = e["retry_delay_ms"].get<double>();
      if (delay < base || delay > base * 1.25) return ::testing::AssertionFailure() << e.dump();
    }
    return ::testing::AssertionSuccess();
  };
  for (const char* capture : {"connection_refused", "overloaded_529", "stream_cut"})
    EXPECT_TRUE(fits(test::json_lines(test::read_all(test::capture_dir("claude", capture) / "stdout.jsonl")), 0))
        << capture;
  EXPECT_TRUE(fits(test::json_lines(test::read_all(test::capture_dir("claude", "rate_limit_429") / "stdout.jsonl")), 2));
  runtime::manual_clock clock(1796145462000);
  id_source ids(1);
  invocation inv;
  inv.as = persona::claude;
  inv.model = "m";
  inv.prompt = "p";
  std::vector<double> waits;
  std::ostringstream out, err;
  auto e = make_emitter({inv, "/ws", &clock, &ids, {}, [&](double s) {
                           waits.push_back(s);
                           return true;
                         }},
                        out, err);
  e->begin();
  action a;
  a.failure = failure_kind::connection_refused;
  e->failure(describe_failure(a, "m", "/ws", clock.now()));
  auto events = test::json_lines(out.str());
  EXPECT_TRUE(fits(events, 0));
  ASSERT_EQ(waits.size(), 10u);
  std::size_t i = 0;
  for (const auto& ev : events)
    if (ev.value("subtype", "") == "api_retry") EXPECT_DOUBLE_EQ(waits[i++], ev["retry_delay_ms"].get<double>() / 1000);
}

} // namespace
} // namespace ad::agent_sim
