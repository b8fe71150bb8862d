// Attempts through the real attempt host, the real process actor and the
// threaded scheduler, running the agent simulator (tools/agent-sim) under
// every adapter's own argv with the executable replaced: the work done in a
// temporary workspace, session discovery, the attempt files, one failure
// class per CLI from the simulator's real output, and many attempts at once
// served by the one reactor thread.

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "actors/attempt/attempt_host.hpp"
#include "actors/process/process_actor.hpp"
#include "messages/types.hpp"
#include "runtime/agents/adapter.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::actors {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr const char* task_name = "auth/02+01_api";
constexpr const char* session_uuid = "3f2b8c1e-4a5d-4e6f-8a7b-9c0d1e2f3a4b";

constexpr std::string_view plan_text = R"(<!-- task=auth/02+01_api plan=1 tag=t1 -->
# Plan
## Modified Files Summary
| File | Change |
|---|---|
| `src/api.cpp` | add |
)";

std::string sim_slurp(const fs::path& p) {
  auto text = runtime::read_file(p, 64 << 20);
  return text.is_ok() ? *text : std::string{};
}

runtime::json sim_read_json(const fs::path& p) {
  auto j = runtime::parse_json(sim_slurp(p), p.string());
  EXPECT_TRUE(j.is_ok()) << p;
  return j.is_ok() ? *j : runtime::json{};
}

std::vector<runtime::json> read_json_lines(const fs::path& p) {
  std::vector<runtime::json> out;
  std::string text = sim_slurp(p);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos)
      nl = text.size();
    if (auto j = runtime::parse_json(std::string_view(text).substr(pos, nl - pos), p.string()))
      out.push_back(*j);
    pos = nl + 1;
  }
  return out;
}

size_t thread_count() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator("/proc/self/task"))
    ++n;
  return n;
}

std::string model_of(const std::string& adapter) {
  if (adapter == "codex")
    return "gpt-5-codex";
  if (adapter == "claude")
    return "claude-opus-4";
  if (adapter == "agy")
    return "gemini-2.5-pro";
  if (adapter == "pi")
    return "qwen3-coder";
  return "sim-model";
}

class attempt_sim_test_base : public ::testing::Test {
public:
  static caf::actor_system_config& configure(caf::actor_system_config& cfg) {
    cfg.set("logger.file-verbosity", caf::atom("quiet"));
    cfg.set("logger.console-verbosity", caf::atom("quiet"));
    cfg.set("scheduler.max-threads", size_t{2});
    messages::register_message_types(cfg);
    return cfg;
  }

  attempt_sim_test_base() : sys(configure(cfg)) {
    ws = dir.path() / "ws";
    plan = dir.write("ws/agent-task/auth/02+01_api/PLAN-cloud-G05.md", plan_text);
    dir.write("ws/src/api.cpp", "// api\n");
    fs::create_directories(dir.path() / "home");
    process_actor_config pc;
    pc.reactor.default_grace_ms = 500;
    pc.reactor.orphan_drain_ms = 200;
    process = sys.spawn(process_actor_impl, pc);
    host = sys.spawn(attempt_host_impl, make_attempt_config(process));
  }

  ~attempt_sim_test_base() override {
    caf::anon_send_exit(host, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(process, caf::exit_reason::user_shutdown);
  }

  // A scenario file whose worker actions apply to every attempt.
  fs::path scenario(std::string_view actions_json) {
    std::string text = R"({"version": 1, "defaults": {"worker": )" + std::string(actions_json) + "}}";
    return dir.write("scenario" + std::to_string(++scenarios) + ".json", text);
  }

  // A worker attempt of `adapter` running the simulator with its real argv.
  messages::start_attempt sim_attempt(const std::string& adapter, const fs::path& scenario_file) {
    messages::start_attempt req;
    req.task = task_name;
    req.plan_number = 1;
    req.role = "worker";
    req.attempt = ++counter;
    req.workspace = ws.string();
    req.workspace_id = "0123456789abcdef";
    req.runs_dir = (dir.path() / "runs").string();
    req.adapter = adapter;
    req.executable = adapter == "command" ? (test::binary_dir() / "agent-sim").string()
                                          : (test::binary_dir() / "sim-bin" / adapter).string();
    req.model = model_of(adapter);
    req.prompt = "Read " + plan.string() + " and complete the task.";
    if (adapter == "claude" || adapter == "pi")
      req.session_id = session_uuid;
    req.command_template = {"agent-sim", "--as",   "command",     "--task",      "{task}",
                            "--role",    "{role}", "--workspace", "{workspace}", "--model",
                            "{model}",   "{prompt}"};
    req.env_additions = {"AGENT_SIM_SCENARIO=" + scenario_file.string(),
                         "AGENT_SIM_COUNTER=" + (dir.path() / "counter.json").string(),
                         "AGENT_SIM_REGISTRY=" + registry().string(),
                         "AGENT_SIM_TIME_SCALE=0.01",
                         "HOME=" + (dir.path() / "home").string()};
    req.timing.heartbeat_ms = 20'000;
    req.timing.silence_inspection_ms = 20'000;
    req.timing.terminate_grace_ms = 500;
    req.timing.pi_poll_ms = 20;
    req.timing.spawn_timeout_ms = 10'000;
    return req;
  }

  fs::path registry() const { return dir.path() / "registry.jsonl"; }

  caf::expected<messages::attempt_result> run(const messages::start_attempt& req,
                                              caf::timespan limit = 30s) {
    caf::scoped_actor self{sys};
    caf::expected<messages::attempt_result> out{caf::sec::request_timeout};
    self->request(host, limit, req)
      .receive([&](messages::attempt_result& r) { out = std::move(r); },
               [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  caf::actor_system_config cfg;
  caf::actor_system sys;
  test::temp_dir dir;
  fs::path ws;
  fs::path plan;
  messages::process_actor process;
  messages::attempt_host_actor host;
  int counter = 0;
  int scenarios = 0;
};

// ---- success under every adapter --------------------------------------------

class attempt_sim_success : public attempt_sim_test_base,
                            public ::testing::WithParamInterface<std::string> {};

TEST_P(attempt_sim_success, TheSimulatorDoesTheWorkAndTheAttemptSucceeds) {
  const std::string adapter = GetParam();
  auto req = sim_attempt(adapter, scenario(R"([{"kind": "events", "count": 2},
                                               {"kind": "work"}])"));
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->status, "succeeded") << r->failure_class << ": " << r->evidence;
  EXPECT_EQ(r->failure_class, "");
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_GT(r->pid, 0);

  // The simulator understood the adapter's argv: it found the task and
  // edited the PLAN's file in the workspace.
  EXPECT_NE(sim_slurp(ws / "src/api.cpp").find("agent-sim worker edit: task=auth/02+01_api"),
            std::string::npos);
  auto records = read_json_lines(registry());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].value("cli", ""), adapter);
  EXPECT_EQ(records[0].value("pid", 0), r->pid);
  EXPECT_EQ(records[0]["argv"][0].get<std::string>(), req.executable);

  auto loc = sim_read_json(r->locator_path);
  EXPECT_EQ(loc.value("status", ""), "succeeded");
  EXPECT_EQ(loc.value("exit_code", -1), 0);
  EXPECT_EQ(loc.value("agent_pid", 0), r->pid);
  fs::path attempt_dir = r->attempt_dir;
  EXPECT_FALSE(sim_slurp(attempt_dir / "normalized-output.log").empty());
  EXPECT_FALSE(sim_slurp(attempt_dir / "stream.log").empty());

  if (adapter == "codex") {
    // The thread id of codex's thread.started event.
    EXPECT_TRUE(runtime::is_uuid(r->session_id)) << r->session_id;
    EXPECT_NE(sim_slurp(attempt_dir / "stream.log").find("\"thread_id\":\"" + r->session_id + "\""),
              std::string::npos);
  } else if (adapter == "claude") {
    EXPECT_EQ(r->session_id, session_uuid);
  } else if (adapter == "pi") {
    // The public pi names its session itself: the id of its `session`
    // event, which names its session file.
    EXPECT_TRUE(runtime::is_uuid(r->session_id)) << r->session_id;
    EXPECT_NE(r->native_session_path.find(r->session_id), std::string::npos)
      << r->native_session_path;
  }
  if (adapter == "codex" || adapter == "claude" || adapter == "pi") {
    EXPECT_EQ(loc.value("session_id", ""), r->session_id);
  }

  // What the attempt spent, read from the CLI's own stream (agy reports
  // nothing typed; a command only in a format the policy names).
  if (adapter == "codex" || adapter == "claude" || adapter == "pi") {
    EXPECT_GT(r->usage.input_tokens.value_or(0), 0) << adapter;
    EXPECT_GT(r->usage.output_tokens.value_or(0), 0) << adapter;
    EXPECT_EQ(loc["usage"], runtime::usage_to_json(r->usage));
  } else {
    EXPECT_TRUE(r->usage.empty()) << adapter;
    EXPECT_FALSE(loc.contains("usage"));
  }
  if (adapter == "claude") {
    EXPECT_TRUE(r->usage.cost_usd) << "claude's own total_cost_usd";
  }

  auto work_log = sim_slurp(ws / "agent-task/auth/WORK_LOG.md");
  EXPECT_NE(work_log.find("| START | auth/02+01_api | worker | 1 |"), std::string::npos)
    << work_log;
  EXPECT_NE(work_log.find("| FINISH | auth/02+01_api | worker | 1 |"), std::string::npos)
    << work_log;
}

INSTANTIATE_TEST_SUITE_P(EveryAdapter, attempt_sim_success,
                         ::testing::Values("codex", "claude", "agy", "pi", "command"),
                         [](const auto& info) { return info.param; });

// A worker node's attempt: the order's prices and the result's usage cross
// the wire as they are.
TEST(attempt_messages, UsageAndPricesCrossTheWire) {
  caf::actor_system_config cfg;
  caf::actor_system sys{attempt_sim_test_base::configure(cfg)};
  messages::start_attempt order;
  order.task = task_name;
  order.usage_reader = "codex";
  order.has_prices = true;
  order.prices = {.input = 3.0, .output = 15.0, .cache_read = 0.3, .cache_write = {}};
  messages::attempt_result result;
  result.identity = "auth__02+01_api__p1__worker__a01";
  result.usage.input_tokens = 1200;
  result.usage.cache_read_tokens = 300;
  result.usage.cost_usd = 0.01;
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  ASSERT_FALSE(sink(order, result));
  messages::start_attempt order_back;
  messages::attempt_result result_back;
  caf::binary_deserializer source{sys, buf};
  ASSERT_FALSE(source(order_back, result_back));
  EXPECT_EQ(order_back, order);
  EXPECT_EQ(result_back, result);
  EXPECT_FALSE(result_back.usage.output_tokens) << "an absent field stays absent";
}

// ---- one failure class per CLI from real simulator output -------------------

using attempt_sim_test = attempt_sim_test_base;

// Runs a worker whose second action is `fail_action` and checks what every
// failure shares: a failed status, the CLI's exit code (1; pi exits 0 even
// when its model call failed), the locator's class.
messages::attempt_result run_failure(attempt_sim_test_base& t, const std::string& adapter,
                                     const std::string& fail_action) {
  auto req = t.sim_attempt(adapter,
                           t.scenario("[{\"kind\": \"events\", \"count\": 2}, " + fail_action + "]"));
  auto r = t.run(req);
  EXPECT_TRUE(r) << caf::to_string(r.error());
  if (!r)
    return {};
  EXPECT_EQ(r->status, "failed");
  EXPECT_EQ(r->exit_code, adapter == "pi" ? 0 : 1);
  EXPECT_LE(r->evidence.size(), 2000u);
  auto loc = sim_read_json(r->locator_path);
  EXPECT_EQ(loc.value("status", ""), "failed");
  EXPECT_EQ(loc.value("failure_class", ""), r->failure_class);
  return *r;
}

// A subscriber's limit: the rejected rate_limit_event's resetsAt is the reset.
TEST_F(attempt_sim_test, ClaudeUsageLimitIsProviderQuotaWithItsResetTime) {
  auto r = run_failure(*this, "claude",
                       R"({"kind": "fail", "failure": "usage_limit", "resets_at": "2026-11-29T18:00:00Z"})");
  EXPECT_EQ(r.failure_class, "provider-quota") << r.evidence;
  EXPECT_EQ(r.failure_source, "cli-typed-end");
  EXPECT_EQ(r.evidence_origin, "claude:result");
  EXPECT_NE(r.evidence.find("You've hit your 5-hour limit"), std::string::npos) << r.evidence;
  ASSERT_TRUE(r.has_reset_at);
  EXPECT_EQ(runtime::format_utc_iso(r.reset_at), "2026-11-29T18:00:00.000Z");
  EXPECT_EQ(r.session_id, session_uuid);
}

// An API key's rate limit: claude retries it, then fails with no reset time.
TEST_F(attempt_sim_test, ClaudeRateLimitIsProviderQuotaAfterItsRetries) {
  auto r = run_failure(*this, "claude", R"({"kind": "fail", "failure": "rate_limit"})");
  EXPECT_EQ(r.failure_class, "provider-quota") << r.evidence;
  EXPECT_EQ(r.failure_source, "cli-typed-end");
  EXPECT_EQ(r.evidence_origin, "claude:result");
  EXPECT_NE(r.evidence.find("API Error: Request rejected (429)"), std::string::npos) << r.evidence;
  EXPECT_FALSE(r.has_reset_at);
  EXPECT_NE(sim_slurp(fs::path(r.attempt_dir) / "normalized-output.log").find("api retry 10/10: rate_limit"),
            std::string::npos);
}

TEST_F(attempt_sim_test, CodexContextLengthIsContextLimit) {
  auto r = run_failure(*this, "codex", R"({"kind": "fail", "failure": "context_length"})");
  EXPECT_EQ(r.failure_class, "context-limit") << r.evidence;
  EXPECT_EQ(r.failure_source, "cli-typed-end");
  EXPECT_EQ(r.evidence_origin, "codex:turn.failed");
  EXPECT_NE(r.evidence.find("Codex ran out of room in the model's context window."), std::string::npos)
    << r.evidence;
  EXPECT_FALSE(r.has_reset_at);
  EXPECT_TRUE(runtime::is_uuid(r.session_id)) << r.session_id;
}

TEST_F(attempt_sim_test, AgyResourceExhaustedIsReadFromItsLogFile) {
  auto r = run_failure(*this, "agy", R"({"kind": "fail", "failure": "resource_exhausted"})");
  EXPECT_EQ(r.failure_class, "provider-quota") << r.evidence;
  EXPECT_EQ(r.failure_source, "cli-terminal-diagnostic");
  EXPECT_EQ(r.evidence_origin, "agy-cli.log");
  EXPECT_NE(r.evidence.find(" ERROR RESOURCE_EXHAUSTED"), std::string::npos) << r.evidence;
  // The log the simulator wrote is the attempt's own agy-cli.log.
  EXPECT_NE(sim_slurp(fs::path(r.attempt_dir) / "agy-cli.log").find("RESOURCE_EXHAUSTED"),
            std::string::npos);
}

TEST_F(attempt_sim_test, PiStreamDisconnectIsProviderStreamDisconnect) {
  auto r = run_failure(*this, "pi", R"({"kind": "fail", "failure": "stream_disconnected"})");
  EXPECT_EQ(r.failure_class, "provider-stream-disconnect") << r.evidence;
  EXPECT_EQ(r.failure_source, "provider-terminal-diagnostic");
  // pi exits 0; the end of its own retries decides.
  EXPECT_EQ(r.evidence_origin, "pi:auto_retry_end");
  EXPECT_EQ(r.evidence, "terminated");
  EXPECT_TRUE(runtime::is_uuid(r.session_id)) << r.session_id;
}

// A pi attempt that fails before the watcher's next reading still reports its
// native session: failover between local pi sessions resumes from it.
TEST_F(attempt_sim_test, AShortPiAttemptCarriesItsNativeSessionPath) {
  auto req = sim_attempt("pi", scenario(R"([{"kind": "events", "count": 2},
                                            {"kind": "fail", "failure": "stream_disconnected"}])"));
  req.timing.pi_poll_ms = 60'000; // one reading at the start, before pi wrote anything
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->failure_class, "provider-stream-disconnect") << r->evidence;
  fs::path session = r->native_session_path;
  EXPECT_EQ(session.parent_path(), fs::path(r->attempt_dir) / "pi-sessions");
  EXPECT_NE(session.filename().string().find(r->session_id), std::string::npos) << session;
  EXPECT_TRUE(fs::is_regular_file(session)) << session;
  EXPECT_EQ(sim_read_json(r->locator_path).value("native_session_path", std::string{}),
            session.string());
}

// codex's rollout under the agent's HOME, found from the discovered thread id.
TEST_F(attempt_sim_test, ACodexAttemptRecordsItsRolloutFile) {
  auto req = sim_attempt("codex", scenario(R"([{"kind": "events", "count": 1},
                                               {"kind": "work"}])"));
  req.env_additions.push_back("AGENT_SIM_NATIVE_SESSIONS=1");
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->status, "succeeded") << r->failure_class << ": " << r->evidence;
  fs::path rollout = r->native_session_path;
  EXPECT_TRUE(fs::is_regular_file(rollout)) << rollout;
  EXPECT_EQ(rollout.string().rfind((dir.path() / "home/.codex/sessions").string(), 0), 0u)
    << rollout;
  EXPECT_NE(rollout.filename().string().find(r->session_id), std::string::npos) << rollout;
  EXPECT_EQ(sim_read_json(r->locator_path).value("native_session_path", std::string{}),
            rollout.string());
}

TEST_F(attempt_sim_test, CommandConnectionRefusedIsProviderConnection) {
  auto r = run_failure(*this, "command", R"({"kind": "fail", "failure": "connection_refused"})");
  EXPECT_EQ(r.failure_class, "provider-connection") << r.evidence;
  EXPECT_EQ(r.failure_source, "provider-terminal-diagnostic");
  EXPECT_EQ(r.evidence_origin, "stderr");
  EXPECT_NE(r.evidence.find("connect: connection refused"), std::string::npos) << r.evidence;
}

// ---- many attempts, one reactor thread ---------------------------------------

struct many_run {
  size_t succeeded = 0;
  size_t peak_threads = 0;
  bool all_overlapped = false;  // every simulator was alive at one instant
};

// Starts n attempts at once (each simulator is silent for `silent_s`
// simulated seconds, so they all run together) and samples this process's
// thread count until every answer is in.
many_run run_many(attempt_sim_test_base& t, size_t n, int silent_s) {
  fs::remove(t.registry());
  auto file = t.scenario(R"([{"kind": "events", "count": 1},
                             {"kind": "silence", "seconds": )" +
                         std::to_string(silent_s) + "}]");
  many_run out;
  caf::scoped_actor self{t.sys};
  for (size_t i = 0; i < n; ++i)
    self->send(t.host, t.sim_attempt("command", file));
  out.peak_threads = thread_count();
  size_t answers = 0;
  auto give_up = std::chrono::steady_clock::now() + 60s;
  while (answers < n && std::chrono::steady_clock::now() < give_up) {
    self->receive(
      [&](messages::attempt_result& r) {
        ++answers;
        if (r.status == "succeeded")
          ++out.succeeded;
        else
          ADD_FAILURE() << r.identity << ": " << r.failure_class << ": " << r.evidence;
      },
      [&](caf::error& err) {
        ++answers;
        ADD_FAILURE() << caf::to_string(err);
      },
      caf::after(10ms) >> [] {});
    out.peak_threads = std::max(out.peak_threads, thread_count());
  }
  auto records = read_json_lines(t.registry());
  EXPECT_EQ(records.size(), n);
  int64_t last_start = 0;
  int64_t first_end = INT64_MAX;
  for (const auto& rec : records) {
    last_start = std::max(last_start, rec.value("start_ms", int64_t{0}));
    first_end = std::min(first_end, rec.value("end_ms", int64_t{0}));
  }
  out.all_overlapped = records.size() == n && last_start < first_end;
  return out;
}

TEST_F(attempt_sim_test, SixtyFourAttemptsAtOnceAddNoThreadPerChild) {
  const size_t before = thread_count();
  // 2 s and 15 s of real silence: time enough for every start, even when
  // sanitized binaries start slowly on a loaded machine (in CI, under
  // ASan beside another test, 64 starts once took longer than 6 s).
  auto few = run_many(*this, 8, 200);
  EXPECT_EQ(few.succeeded, 8u);
  EXPECT_TRUE(few.all_overlapped);
  auto many = run_many(*this, 64, 1500);
  EXPECT_EQ(many.succeeded, 64u);
  EXPECT_TRUE(many.all_overlapped);
  RecordProperty("threads_before", static_cast<int>(before));
  RecordProperty("threads_peak_8", static_cast<int>(few.peak_threads));
  RecordProperty("threads_peak_64", static_cast<int>(many.peak_threads));
  // One reactor thread (and whatever CAF starts lazily) whatever the number
  // of children: 64 children need no more threads than 8.
  EXPECT_LE(few.peak_threads, before + 2) << "before " << before;
  EXPECT_LE(many.peak_threads, few.peak_threads) << "before " << before;
}

} // namespace
} // namespace ad::actors
