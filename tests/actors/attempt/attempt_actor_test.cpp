// The attempt actor end to end: real processes (/bin/sh scripts through the
// `command` adapter, a fake codex for the review control), the real process
// actor and the threaded scheduler, with millisecond timings.

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include "runtime/trace/trace_writer.hpp"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "actors/attempt/attempt_host.hpp"
#include "actors/process/process_actor.hpp"
#include "messages/types.hpp"
#include "runtime/agents/attempt_locator.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/process/liveness.hpp"
#include "runtime/trace/trace_format.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::actors {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

runtime::json read_json(const fs::path& p) {
  auto text = runtime::read_file(p);
  EXPECT_TRUE(text.is_ok()) << p;
  if (!text)
    return runtime::json{};
  auto j = runtime::parse_json(*text, p.string());
  EXPECT_TRUE(j.is_ok()) << p;
  return j.is_ok() ? *j : runtime::json{};
}

std::string slurp(const fs::path& p) {
  auto text = runtime::read_file(p);
  return text.is_ok() ? *text : std::string{};
}

// A process that exists and is not a zombie.
bool running(int pid) {
  auto stat = runtime::read_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat)
    return false;
  auto close = stat->rfind(')');
  return close != std::string::npos && close + 2 < stat->size() && (*stat)[close + 2] != 'Z';
}

class attempt_actor_test_base : public ::testing::Test {
public:
  static caf::actor_system_config& configure(caf::actor_system_config& cfg) {
    cfg.set("logger.file-verbosity", caf::atom("quiet"));
    cfg.set("logger.console-verbosity", caf::atom("quiet"));
    cfg.set("scheduler.max-threads", size_t{2});
    messages::register_message_types(cfg);
    return cfg;
  }

  attempt_actor_test_base() : sys(configure(cfg)) {
    process_actor_config pc;
    pc.reactor.default_grace_ms = 500;
    pc.reactor.orphan_drain_ms = 200;
    process = sys.spawn(process_actor_impl, pc);
    host = sys.spawn(attempt_host_impl, make_attempt_config(process));
  }

  ~attempt_actor_test_base() override {
    caf::anon_send_exit(host, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(process, caf::exit_reason::user_shutdown);
  }

  // A `command` attempt running `sh -c script sh <attempt_dir>`.
  messages::start_attempt shell_attempt(std::string script, std::string task = "grp/01_demo") {
    messages::start_attempt req;
    req.task = std::move(task);
    req.plan_number = 2;
    req.role = "worker";
    req.attempt = ++counter;
    req.workspace = dir.path().string();
    req.workspace_id = "0123456789abcdef";
    req.runs_dir = (dir.path() / "runs").string();
    req.adapter = "command";
    req.model = "sim";
    req.prompt = "Read PLAN.md and complete the task.";
    req.command_template = {"/bin/sh", "-c", std::move(script), "sh", "{attempt_dir}"};
    req.timing.heartbeat_ms = 10'000;
    req.timing.silence_inspection_ms = 10'000;
    req.timing.terminate_grace_ms = 300;
    req.timing.spawn_timeout_ms = 5'000;
    return req;
  }

  caf::expected<messages::attempt_result> run(const messages::start_attempt& req,
                                              caf::timespan limit = 20s) {
    return run_on(host, req, limit);
  }

  caf::expected<messages::attempt_result> run_on(const messages::attempt_host_actor& on,
                                                 const messages::start_attempt& req,
                                                 caf::timespan limit = 20s) {
    caf::scoped_actor self{sys};
    caf::expected<messages::attempt_result> out{caf::sec::request_timeout};
    self->request(on, limit, req)
      .receive([&](messages::attempt_result& r) { out = std::move(r); },
               [&](caf::error& err) { out = std::move(err); });
    return out;
  }

  caf::actor_system_config cfg;
  caf::actor_system sys;
  test::temp_dir dir;
  messages::process_actor process;
  messages::attempt_host_actor host;
  int counter = 0;
};
using attempt_actor_test = attempt_actor_test_base;

TEST_F(attempt_actor_test, ASuccessfulRunWritesEveryFile) {
  auto req = shell_attempt(
    "cp \"$1/locator.json\" \"$1/seen-at-start.json\"; echo $$ > \"$1/pid\";"
    " echo hello; echo oops >&2; echo bye; exit 0");
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->status, "succeeded");
  EXPECT_EQ(r->failure_class, "");
  EXPECT_EQ(r->identity, "grp__01_demo__p2__worker__a01");
  fs::path attempt_dir = r->attempt_dir;
  EXPECT_EQ(attempt_dir.parent_path(), dir.path() / "runs");
  EXPECT_NE(attempt_dir.filename().string().find("__grp__01_demo__p2__worker__a01"),
            std::string::npos);

  // The locator existed before the child ran, saying it was running.
  auto seen = read_json(attempt_dir / "seen-at-start.json");
  EXPECT_EQ(seen.value("identity", ""), r->identity);
  EXPECT_EQ(seen.value("status", ""), "running");

  auto loc = read_json(r->locator_path);
  EXPECT_EQ(loc.value("status", ""), "succeeded");
  EXPECT_EQ(loc.value("exit_code", -1), 0);
  EXPECT_EQ(std::to_string(loc.value("agent_pid", 0)) + "\n", slurp(attempt_dir / "pid"));
  EXPECT_EQ(r->pid, loc.value("agent_pid", 0));
  EXPECT_FALSE(loc.value("agent_start_token", std::string{}).empty());
  EXPECT_EQ(loc.value("cli", ""), "command");

  auto stream = slurp(attempt_dir / "stream.log");
  EXPECT_NE(stream.find("[stdout] hello\n"), std::string::npos) << stream;
  EXPECT_NE(stream.find("[stderr] oops\n"), std::string::npos) << stream;
  EXPECT_NE(stream.find("[stdout] bye\n"), std::string::npos) << stream;
  auto normalized = slurp(attempt_dir / "normalized-output.log");
  EXPECT_NE(normalized.find("hello"), std::string::npos) << normalized;
  EXPECT_TRUE(fs::exists(attempt_dir / "heartbeat.log"));

  auto log = slurp(dir.path() / "agent-task/grp/WORK_LOG.md");
  EXPECT_NE(log.find("| START | grp/01_demo | worker | 1 | sim | running |"), std::string::npos)
    << log;
  EXPECT_NE(log.find("| FINISH | grp/01_demo | worker | 1 | sim | succeeded:0 |"),
            std::string::npos)
    << log;
}

TEST_F(attempt_actor_test, TheLocatorNamesThePidWhileTheChildRuns) {
  auto req = shell_attempt(
    "echo $$ > \"$1/pid\"; sleep 0.4; cp \"$1/locator.json\" \"$1/seen-running.json\"");
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  fs::path attempt_dir = r->attempt_dir;
  auto seen = read_json(attempt_dir / "seen-running.json");
  EXPECT_EQ(seen.value("status", ""), "running");
  EXPECT_EQ(std::to_string(seen.value("agent_pid", 0)) + "\n", slurp(attempt_dir / "pid"));
  EXPECT_FALSE(seen.value("agent_start_token", std::string{}).empty());
  EXPECT_FALSE(seen.value("process_marker", std::string{}).empty());
}

TEST_F(attempt_actor_test, StderrIsClassified) {
  auto req = shell_attempt(
    "echo working; echo 'error: maximum context length is 200000 tokens' >&2; exit 1");
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->status, "failed");
  EXPECT_EQ(r->exit_code, 1);
  EXPECT_EQ(r->failure_class, "context-limit");
  EXPECT_NE(r->evidence.find("maximum context length"), std::string::npos) << r->evidence;
  EXPECT_EQ(r->evidence_origin, "stderr");
  auto loc = read_json(r->locator_path);
  EXPECT_EQ(loc.value("failure_class", ""), "context-limit");
  auto log = slurp(dir.path() / "agent-task/grp/WORK_LOG.md");
  EXPECT_NE(log.find("failed:context-limit:1"), std::string::npos) << log;
}

TEST_F(attempt_actor_test, ATenMebibyteLineIsCutAtTheConfiguredCap) {
  auto req = shell_attempt(
    "echo before; head -c 10485760 /dev/zero | tr '\\000' x; echo; echo after; exit 0");
  req.line_cap = 64 * 1024;
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->status, "succeeded") << r->failure_class << ": " << r->evidence;
  fs::path stream = fs::path{r->attempt_dir} / "stream.log";
  // The cut line holds the first 64 KiB; the rest was counted, not kept.
  EXPECT_LT(fs::file_size(stream), 256u * 1024);
  auto text = slurp(stream);
  std::string cut = "[stdout] " + std::string(64 * 1024, 'x') + " [line cut: " +
                    std::to_string(10485760 - 64 * 1024) + " bytes dropped]\n";
  EXPECT_NE(text.find("[stdout] before\n" + cut + "[stdout] after\n"), std::string::npos);
}

TEST_F(attempt_actor_test, ANonZeroExitWithoutPatternIsAGenericError) {
  auto r = run(shell_attempt("echo something odd >&2; exit 3"));
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->failure_class, "generic-error");
  EXPECT_EQ(r->exit_code, 3);
}

TEST_F(attempt_actor_test, HeartbeatsAndOneSilenceInspectionDuringSilence) {
  auto req = shell_attempt("echo first; sleep 0.7; echo last");
  req.timing.heartbeat_ms = 100;
  req.timing.silence_inspection_ms = 250;
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->status, "succeeded");
  EXPECT_GE(r->heartbeats, 4);
  EXPECT_LE(r->heartbeats, 8);
  EXPECT_TRUE(r->silence_inspected);
  auto beats = slurp(fs::path{r->attempt_dir} / "heartbeat.log");
  EXPECT_NE(beats.find("[heartbeat] "), std::string::npos) << beats;
  auto first = beats.find("[silence-inspection]");
  ASSERT_NE(first, std::string::npos) << beats;
  EXPECT_EQ(beats.find("[silence-inspection]", first + 1), std::string::npos) << beats;
  auto loc = read_json(r->locator_path);
  EXPECT_EQ(loc.value("silence_inspections", 0), 1);
  ASSERT_TRUE(loc.contains("silence_inspection")) << loc.dump();
  auto tail = loc["silence_inspection"].value("stream_tail", "");
  EXPECT_NE(tail.find("[stdout] first"), std::string::npos) << tail;
  EXPECT_NE(beats.find("[finish] status=succeeded exit=0 class=none"), std::string::npos) << beats;
}

TEST_F(attempt_actor_test, ATracedAttemptRecordsItsLinesSilenceAndClassification) {
  // A traced run's attempt writes its follow, every line, its silence
  // checks and, at the end, its classification's inputs and verdict and
  // the work-log rows it wrote, into the run's trace, in order.
  auto trace = runtime::trace_writer::in_memory({});
  auto traced = sys.spawn(attempt_host_impl, make_attempt_config(process, trace));
  auto req = shell_attempt("echo first; sleep 0.35; echo 'second line' >&2; exit 3");
  req.timing.heartbeat_ms = 100;
  caf::expected<messages::attempt_result> r{caf::sec::request_timeout};
  {
    caf::scoped_actor self{sys};
    self->request(traced, 20s, req)
      .receive([&](messages::attempt_result& x) { r = std::move(x); },
               [&](caf::error& err) { r = std::move(err); });
  }
  caf::anon_send_exit(traced, caf::exit_reason::user_shutdown);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  std::vector<std::string> kinds;
  std::vector<std::string> texts;
  int64_t silence_seq = 0, exit_seq = 0;
  std::string verdict_class;
  std::vector<std::string> rows;
  for (const auto& rec : trace->kept_records()) {
    kinds.push_back(rec.kind);
    if (rec.kind == "attempt.line")
      texts.push_back(rec.body.value("channel", "") + ":" + rec.body.value("text", ""));
    if (rec.kind == "attempt.silence" && silence_seq == 0)
      silence_seq = rec.seq;
    if (rec.kind == "attempt.silence_due") {
      EXPECT_GT(rec.cause, 0);
      EXPECT_EQ(rec.body.value("tools", ""), "idle");
    }
    if (rec.kind == "attempt.exit") {
      exit_seq = rec.seq;
      EXPECT_EQ(rec.body.value("identity", ""), "grp__01_demo__p2__worker__a" +
                                                  std::string(req.attempt < 10 ? "0" : "") +
                                                  std::to_string(req.attempt));
      EXPECT_TRUE(rec.body.contains("inputs")) << rec.body.dump();
    }
    if (rec.kind == "attempt.classified") {
      EXPECT_EQ(rec.cause, exit_seq);
      verdict_class = rec.body.value("failure_class", "");
    }
    if (rec.kind == "worklog.row")
      rows.push_back(rec.body.value("event", ""));
  }
  ASSERT_FALSE(kinds.empty());
  EXPECT_EQ(kinds.front(), "attempt.follow");
  EXPECT_EQ(texts, (std::vector<std::string>{"out:first", "err:second line"}));
  EXPECT_GT(silence_seq, 0) << "no silence check during 0.35 s with a 100 ms heartbeat";
  EXPECT_GT(exit_seq, silence_seq);
  EXPECT_EQ(verdict_class, r->failure_class);
  EXPECT_EQ(rows, (std::vector<std::string>{"START", "FINISH"}));
}

TEST_F(attempt_actor_test, OutputKeepsHeartbeatsAway) {
  // Output every 0.2 s for 2 s against a 1 s heartbeat: each line restarts
  // the silence clock, with room for a loaded machine to be slow.
  auto req = shell_attempt("for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i; sleep 0.2; done");
  req.timing.heartbeat_ms = 1000;
  req.timing.silence_inspection_ms = 1000;
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->heartbeats, 0);
  EXPECT_FALSE(r->silence_inspected);
}

TEST_F(attempt_actor_test, TheStallLimitTerminatesAsSessionStall) {
  auto req = shell_attempt("echo started; exec sleep 30");
  req.timing.heartbeat_ms = 50;
  req.timing.stall_limit_ms = 200;
  auto t0 = std::chrono::steady_clock::now();
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_EQ(r->failure_class, "session-stall");
  EXPECT_EQ(r->status, "failed");
  auto log = slurp(dir.path() / "agent-task/grp/WORK_LOG.md");
  EXPECT_NE(log.find("failed:session-stall"), std::string::npos) << log;
  auto beats = slurp(fs::path{r->attempt_dir} / "heartbeat.log");
  EXPECT_NE(beats.find("[stall] silent_ms="), std::string::npos) << beats;
  EXPECT_NE(beats.find("limit_ms=200; terminating the process group"), std::string::npos) << beats;
}

TEST_F(attempt_actor_test, CancellationKillsTheWholeProcessGroup) {
  auto req = shell_attempt(
    "sleep 60 & echo $! > \"$1/grandchild\"; echo $$ > \"$1/pid\"; echo ready; wait");
  auto identity = runtime::make_attempt_identity(req.task, req.plan_number, req.role, req.attempt);
  // The cancel comes once the agent has started its grandchild (a fixed
  // sleep raced the start on a loaded machine).
  std::thread canceller([&] {
    auto started = [&] {
      std::error_code ec;
      for (fs::recursive_directory_iterator it(dir.path() / "runs", ec), end; !ec && it != end;
           it.increment(ec))
        if (it->path().filename() == "pid" && fs::file_size(it->path(), ec) > 0)
          return true;
      return false;
    };
    for (auto until = std::chrono::steady_clock::now() + 30s;
         !started() && std::chrono::steady_clock::now() < until;)
      std::this_thread::sleep_for(5ms);
    caf::anon_send(host, messages::cancel_attempt{identity});
  });
  auto r = run(req);
  canceller.join();
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->failure_class, "cancelled");
  EXPECT_EQ(r->status, "failed");
  fs::path attempt_dir = r->attempt_dir;
  int grandchild = std::stoi(slurp(attempt_dir / "grandchild"));
  int leader = std::stoi(slurp(attempt_dir / "pid"));
  EXPECT_EQ(leader, r->pid);
  // The group (leader and grandchild) is gone.
  for (int i = 0; i < 50 && runtime::probe_process_group(leader) == runtime::group_liveness::alive;
       ++i)
    std::this_thread::sleep_for(20ms);
  EXPECT_EQ(runtime::probe_process_group(leader), runtime::group_liveness::gone);
  EXPECT_FALSE(running(grandchild));
  EXPECT_FALSE(running(leader));
  auto log = slurp(dir.path() / "agent-task/grp/WORK_LOG.md");
  EXPECT_NE(log.find("failed:cancelled"), std::string::npos) << log;
}

TEST_F(attempt_actor_test, ACommandThatCannotStartIsALaunchFailure) {
  auto req = shell_attempt("unused");
  req.command_template = {"/nonexistent/agent-cli", "{prompt}"};
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->failure_class, "launch-failure");
  EXPECT_EQ(r->exit_code, 127);
  EXPECT_EQ(r->pid, 0);
}

TEST_F(attempt_actor_test, AWorkLogThatCannotBeWrittenStopsBeforeTheProcess) {
  auto req = shell_attempt("touch \"$1/ran\"");
  dir.write("blocker", "a file where a folder should be");
  req.work_log = (dir.path() / "blocker/WORK_LOG.md").string();
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->failure_class, "work-log-write-failed");
  EXPECT_EQ(r->pid, 0);
  EXPECT_FALSE(fs::exists(fs::path{r->attempt_dir} / "ran"));
  auto loc = read_json(r->locator_path);
  EXPECT_EQ(loc.value("failure_class", ""), "work-log-write-failed");
}

TEST_F(attempt_actor_test, AnUnwritableRunsFolderIsAnErrorAndNothingStarts) {
  auto req = shell_attempt("touch \"$1/ran\"");
  dir.write("runs-file", "not a folder");
  req.runs_dir = (dir.path() / "runs-file").string();
  auto r = run(req);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), messages::errc::state_unavailable);
}

TEST_F(attempt_actor_test, ACodexReviewStartingACollaborationToolIsStopped) {
  auto fake = dir.write("fake-codex",
                        "#!/bin/sh\n"
                        "echo '{\"type\":\"thread.started\",\"thread_id\":\"t-1\"}'\n"
                        "echo '{\"type\":\"item.started\",\"item\":{\"id\":\"i1\",\"type\":"
                        "\"collab_tool_call\",\"tool\":\"spawn_agent\"}}'\n"
                        "exec sleep 30\n");
  fs::permissions(fake, fs::perms::owner_all);
  auto req = shell_attempt("unused");
  req.adapter = "codex";
  req.role = "review";
  req.executable = fake.string();
  req.command_template.clear();
  req.prompt = "Read CODE_REVIEW.md and start the review.";
  auto t0 = std::chrono::steady_clock::now();
  auto r = run(req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_EQ(r->failure_class, "review-control-violation");
  EXPECT_EQ(r->session_id, "t-1");
}

// A fake pi: puts a fixture session where the attempt told pi to keep its
// session, says one line, then stays silent.
messages::start_attempt pi_attempt(attempt_actor_test_base& t, const char* fixture_name) {
  auto fake = t.dir.write("fake-pi",
                          "#!/bin/sh\n"
                          "while [ $# -gt 0 ]; do\n"
                          "  case \"$1\" in\n"
                          "    --session-id) id=\"$2\"; shift;;\n"
                          "    --session-dir) dir=\"$2\"; shift;;\n"
                          "  esac\n"
                          "  shift\n"
                          "done\n"
                          "mkdir -p \"$dir\"\n"
                          "cp \"$PI_FIXTURE\" \"$dir/2026-11-29T12-00-00-000Z_$id.jsonl\"\n"
                          "echo thinking\n"
                          "sleep 0.6\n");
  fs::permissions(fake, fs::perms::owner_all);
  auto req = t.shell_attempt("unused");
  req.adapter = "pi";
  req.executable = fake.string();
  req.model = "m";
  req.command_template.clear();
  req.env_additions = {"PI_FIXTURE=" + (test::source_dir() / "tests/fixtures/agents/pi-sessions" /
                                        fixture_name)
                                         .string()};
  req.timing.heartbeat_ms = 100;
  req.timing.silence_inspection_ms = 250;
  req.timing.pi_poll_ms = 20;
  return req;
}

TEST_F(attempt_actor_test, PiSilenceDuringARunningToolIsNotInspected) {
  auto r = run(pi_attempt(*this, "tool-running.jsonl"));
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->status, "succeeded");
  EXPECT_FALSE(r->silence_inspected);
  EXPECT_GE(r->heartbeats, 3);
  EXPECT_NE(r->native_session_path.find(r->session_id + ".jsonl"), std::string::npos)
    << r->native_session_path;
  auto beats = slurp(fs::path{r->attempt_dir} / "heartbeat.log");
  EXPECT_NE(beats.find("pi_phase=tool-running"), std::string::npos) << beats;
  auto loc = read_json(r->locator_path);
  EXPECT_EQ(loc.value("pi_session_phase", ""), "tool-running");
}

TEST_F(attempt_actor_test, PiSilenceOutsideAToolIsInspected) {
  auto r = run(pi_attempt(*this, "awaiting-model-user.jsonl"));
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->status, "succeeded");
  EXPECT_TRUE(r->silence_inspected);
  auto beats = slurp(fs::path{r->attempt_dir} / "heartbeat.log");
  EXPECT_NE(beats.find("[silence-inspection] silent_ms="), std::string::npos) << beats;
  EXPECT_NE(beats.find("pi (phase awaiting-model) wrote no output"), std::string::npos) << beats;
}

} // namespace
} // namespace ad::actors

namespace ad::actors {
namespace {

// What a claim watcher was told, in order ("begin", "agent", "end"), with
// whether the agent's marker file existed when the begin came.
struct watch_log {
  std::mutex m;
  std::vector<std::string> kinds;
  messages::attempt_watch_begin begin;
  int32_t agent_pid = 0;
  std::string end_identity;
  int64_t ended_at = 0;
  bool agent_ran_before_begin = false;
  fs::path agent_trace; // the agent writes it first thing
};

// Waits (up to 5 s) until the watcher was told `count` things: the end goes
// out before the result, but to another actor.
void wait_for_told(watch_log& log, size_t count) {
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard lock(log.m);
      if (log.kinds.size() >= count)
        return;
    }
    std::this_thread::sleep_for(10ms);
  }
}

messages::attempt_watch_actor::behavior_type recording_watcher(std::shared_ptr<watch_log> log) {
  return {
    [log](messages::attempt_watch_begin& b) -> messages::attempt_watch_ready {
      std::lock_guard lock(log->m);
      log->kinds.push_back("begin");
      log->agent_ran_before_begin = fs::exists(log->agent_trace);
      log->begin = b;
      return {};
    },
    [log](messages::attempt_watch_agent& a) {
      std::lock_guard lock(log->m);
      log->kinds.push_back("agent");
      log->agent_pid = a.agent_pid;
    },
    [log](messages::attempt_watch_end& e) {
      std::lock_guard lock(log->m);
      log->kinds.push_back("end");
      log->end_identity = e.identity;
      log->ended_at = e.ended_at;
    },
  };
}

TEST_F(attempt_actor_test, TheClaimWatcherIsToldBeforeTheAgentStartsThenItsPidThenItsEnd) {
  auto log = std::make_shared<watch_log>();
  log->agent_trace = dir.path() / "agent-ran";
  auto watcher = sys.spawn(recording_watcher, log);
  auto cfg = make_attempt_config(process);
  cfg.claims = watcher;
  auto watched_host = sys.spawn(attempt_host_impl, cfg);
  auto req = shell_attempt("touch \"" + log->agent_trace.string() + "\"; echo $$ > \"$1/pid\"; exit 0");
  req.write_paths = {(dir.path() / "src" / "a.cpp").string()};

  auto r = run_on(watched_host, req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->status, "succeeded");
  auto locator = read_json(fs::path(r->attempt_dir) / "locator.json");

  wait_for_told(*log, 3);
  std::lock_guard lock(log->m);
  EXPECT_EQ(log->kinds, (std::vector<std::string>{"begin", "agent", "end"}));
  EXPECT_FALSE(log->agent_ran_before_begin) << "the agent started before the watcher answered";
  EXPECT_EQ(log->begin.task, "grp/01_demo");
  EXPECT_EQ(log->begin.identity, r->identity);
  EXPECT_EQ(log->begin.marker, locator.value("process_marker", std::string{}));
  EXPECT_FALSE(log->begin.marker.empty());
  EXPECT_EQ(log->begin.write_paths, req.write_paths);
  EXPECT_EQ(std::to_string(log->agent_pid) + "\n", slurp(fs::path(r->attempt_dir) / "pid"));
  EXPECT_EQ(log->end_identity, r->identity);
  EXPECT_GE(log->ended_at, log->begin.started_at);
  caf::anon_send_exit(watched_host, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
}

TEST_F(attempt_actor_test, AnAttemptThatCannotStartStillEndsWhatItBeganWithTheWatcher) {
  auto log = std::make_shared<watch_log>();
  auto watcher = sys.spawn(recording_watcher, log);
  auto cfg = make_attempt_config(process);
  cfg.claims = watcher;
  auto watched_host = sys.spawn(attempt_host_impl, cfg);
  auto req = shell_attempt("exit 0");
  req.command_template = {(dir.path() / "no-such-agent").string()};

  auto r = run_on(watched_host, req);
  ASSERT_TRUE(r) << caf::to_string(r.error());
  EXPECT_EQ(r->status, "failed");
  wait_for_told(*log, 2);
  std::lock_guard lock(log->m);
  EXPECT_EQ(log->kinds, (std::vector<std::string>{"begin", "end"}));
  EXPECT_EQ(log->end_identity, r->identity);
  caf::anon_send_exit(watched_host, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
}

} // namespace
} // namespace ad::actors
