// Runs the built agent-sim binary the way a dispatcher does (own process
// group, the real CLI argv shapes, environment variables) and checks exit
// codes, signals, workspace effects, the registry and the outliving child.
#include <cctype>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "runtime/agents/usage_reader.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "tests/support/temp_dir.hpp"
#include "tools/agent-sim/registry.hpp"
#include "tools/agent-sim/workspace_effects.hpp"

namespace ad::agent_sim {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct sim_process {
  pid_t pid = -1;
  fs::path out, err;
};

struct sim_result {
  int status = 0;
  std::string out, err;
  bool exited(int code) const { return WIFEXITED(status) && WEXITSTATUS(status) == code; }
  bool killed_by(int sig) const { return WIFSIGNALED(status) && WTERMSIG(status) == sig; }
};

std::string read(const fs::path& p) {
  auto t = runtime::read_file(p);
  return t.is_ok() ? *t : "";
}

constexpr std::string_view plan_text = R"(<!-- task=auth/02+01_api plan=1 tag=t1 -->
# Plan
## Modified Files Summary
| File | Change |
|---|---|
| `src/api.cpp` | add |
)";
constexpr std::string_view review_text = "# Review\n## Implementation Checklist\n- [ ] api\n";

class agent_sim_binary : public ::testing::Test {
protected:
  void SetUp() override {
    ws_ = tmp_.path() / "ws";
    plan_ = tmp_.write("ws/agent-task/auth/02+01_api/PLAN-cloud-G05.md", plan_text);
    review_ = tmp_.write("ws/agent-task/auth/02+01_api/CODE_REVIEW-cloud-G05.md", review_text);
    registry_ = tmp_.path() / "registry.jsonl";
    env_ = {"AGENT_SIM_REGISTRY=" + registry_.string(), "AGENT_SIM_SEED=7",
            "AGENT_DISPATCH_EXECUTION_ID=wabc__auth_02_api__p1__worker__a01__x"};
  }

  // The CLIs' own retry waits (claude's ten api_retry delays are three
  // minutes) a thousand times shorter.
  void fast_waits() { env_.push_back("AGENT_SIM_TIME_SCALE=0.001"); }

  void scenario(std::string_view json_text) {
    fs::path p = tmp_.write("scenario.json", json_text);
    env_.push_back("AGENT_SIM_SCENARIO=" + p.string());
  }

  std::string worker_prompt() const { return "Read " + plan_.string() + " and complete the task."; }
  std::string review_prompt() const { return "Read " + review_.string() + " and start the review."; }

  std::vector<std::string> codex_argv(const std::string& prompt) const {
    return {(test::binary_dir() / "sim-bin/codex").string(), "exec", "--json", "-C", ws_.string(), "-m", "gpt-x",
            "-c", "model_reasoning_effort=\"high\"", "--dangerously-bypass-approvals-and-sandbox", prompt};
  }
  std::vector<std::string> claude_argv(const std::string& prompt) const {
    return {(test::binary_dir() / "sim-bin/claude").string(), "-p", "--output-format", "stream-json",
            "--verbose", "--session-id", "00000000-0000-4000-8000-0000000000aa", "--model", "opus",
            "--effort", "high", "--dangerously-skip-permissions", prompt};
  }
  std::vector<std::string> agy_argv(const std::string& prompt) const {
    return {(test::binary_dir() / "sim-bin/agy").string(), "--print", prompt, "--print-timeout", "8h",
            "--model", "gemini", "--dangerously-skip-permissions", "--log-file",
            (tmp_.path() / "attempt/agy-cli.log").string()};
  }
  // The public pi's argv: no --approve, no --session-id (it names its session).
  std::vector<std::string> pi_argv(const std::string& prompt) const {
    return {(test::binary_dir() / "sim-bin/pi").string(), "-p", "--mode", "json", "--provider", "iop", "--model",
            "qwen", "--thinking", "high", "--session-dir", (tmp_.path() / "attempt/pi-sessions").string(), prompt};
  }

  sim_process start(const std::vector<std::string>& argv) {
    static int n = 0;
    sim_process p;
    p.out = tmp_.path() / ("out" + std::to_string(++n));
    p.err = tmp_.path() / ("err" + std::to_string(n));
    std::vector<std::string> env = env_;
    env.push_back("PATH=/usr/bin:/bin");
    std::vector<char*> cargv, cenv;
    for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    for (const auto& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
    cenv.push_back(nullptr);
    p.pid = ::fork();
    if (p.pid == 0) {
      ::setpgid(0, 0);  // like the dispatcher: its own process group
      if (::chdir(ws_.c_str()) != 0) ::_exit(126);
      int in = ::open("/dev/null", O_RDONLY);  // like the dispatcher: no terminal
      int o = ::open(p.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int e = ::open(p.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(in, 0);
      ::dup2(o, 1);
      ::dup2(e, 2);
      ::execve(cargv[0], cargv.data(), cenv.data());
      ::_exit(127);
    }
    ::setpgid(p.pid, p.pid);
    return p;
  }

  sim_result wait(const sim_process& p) {
    sim_result r;
    EXPECT_EQ(::waitpid(p.pid, &r.status, 0), p.pid);
    r.out = read(p.out);
    r.err = read(p.err);
    return r;
  }

  sim_result run(const std::vector<std::string>& argv) { return wait(start(argv)); }

  std::vector<run_record> records() {
    auto r = read_registry(registry_);
    EXPECT_TRUE(r.is_ok()) << r.error().to_string();
    return r.is_ok() ? *r : std::vector<run_record>{};
  }

  test::temp_dir tmp_;
  fs::path ws_, plan_, review_, registry_;
  std::vector<std::string> env_;
};

TEST_F(agent_sim_binary, competent_worker_then_passing_review) {
  auto worker = run(codex_argv(worker_prompt()));
  ASSERT_TRUE(worker.exited(0)) << worker.err;
  EXPECT_NE(worker.out.find("\"thread.started\""), std::string::npos);
  EXPECT_NE(read(ws_ / "src/api.cpp").find("agent-sim worker edit"), std::string::npos);
  EXPECT_TRUE(checklist_complete(read(review_)));

  auto review = run(claude_argv(review_prompt()));
  ASSERT_TRUE(review.exited(0)) << review.err;
  EXPECT_FALSE(fs::exists(plan_.parent_path()));
  bool archived = false;
  for (const auto& e : fs::recursive_directory_iterator(ws_ / "agent-task/archive"))
    archived = archived || (e.path().filename() == "complete.log" &&
                            e.path().parent_path().filename() == "02+01_api" &&
                            fs::exists(e.path().parent_path() / "code_review_cloud_G05_1.log"));
  EXPECT_TRUE(archived);

  auto runs = records();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].task, "auth/02+01_api");
  EXPECT_EQ(runs[0].role, "worker");
  EXPECT_EQ(runs[0].cli, "codex");
  EXPECT_EQ(runs[0].marker, "wabc__auth_02_api__p1__worker__a01__x");
  EXPECT_EQ(runs[0].files_written.front(), (ws_ / "src/api.cpp").string());
  EXPECT_EQ(runs[1].role, "review");
  EXPECT_EQ(runs[1].cli, "claude");
  EXPECT_LE(runs[0].end_ms, runs[1].start_ms);
  EXPECT_TRUE(check_registry(runs, 1).empty());
}

// A scenario's usage and a usage action, read back by the dispatcher's
// reader from what the binary printed.
TEST_F(agent_sim_binary, the_scenarios_usage_is_what_the_reader_reads) {
  scenario(R"({"usage": {"input_tokens": 5000, "cost_usd": 0.02},
      "defaults": {"worker": [{"kind": "events", "count": 1},
                              {"kind": "usage", "output_tokens": 90, "cache_read_tokens": 7}]}})");
  auto r = run(pi_argv(worker_prompt()));
  ASSERT_TRUE(r.exited(0)) << r.err;
  runtime::usage_reader reader(runtime::usage_format::pi);
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) reader.on_line(line);
  // One step at 5,000 / 56; the final answer at 5,000 / 90 with 7 cached.
  auto u = reader.so_far();
  EXPECT_EQ(u.input_tokens, 2 * 5000);
  EXPECT_EQ(u.output_tokens, 56 + 90);
  EXPECT_EQ(u.cache_read_tokens, 7);
  ASSERT_TRUE(u.cost_usd);
  EXPECT_NEAR(*u.cost_usd, 0.04, 1e-12);
}

TEST_F(agent_sim_binary, attempts_are_counted_per_task_and_role) {
  fast_waits();
  scenario(R"({"tasks": {"auth/02+01_api": {"worker": {"1": [{"kind": "fail", "failure": "rate_limit",
            "retry_after_seconds": 30}]}}}})");
  auto first = run(codex_argv(worker_prompt()));
  EXPECT_TRUE(first.exited(1));
  EXPECT_NE(first.out.find("\"turn.failed\""), std::string::npos);
  EXPECT_NE(first.out.find("Reconnecting... 5/5 (exceeded retry limit, last status: 429 Too Many Requests"),
            std::string::npos)
      << first.out;
  EXPECT_FALSE(fs::exists(ws_ / "src/api.cpp"));
  auto second = run(codex_argv(worker_prompt()));
  EXPECT_TRUE(second.exited(0)) << second.err;
  EXPECT_TRUE(fs::exists(ws_ / "src/api.cpp"));
  auto runs = records();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].attempt, 1);
  EXPECT_EQ(runs[0].exit_code, 1);
  EXPECT_EQ(runs[1].attempt, 2);
}

// The failed end each JSON CLI prints (its typed end), or the text agy and a
// command agent print.
bool reports_failure(const std::string& cli, const std::string& out, const std::string& err,
                     const std::string& needle) {
  if (cli == "agy" || cli == "command") return (out + err).find(needle) != std::string::npos;
  std::string last_end;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    auto j = runtime::parse_json(line, "stdout");
    if (!j.is_ok()) return false;
    std::string type = j->value("type", "");
    if (cli == "codex" && (type == "turn.failed" || type == "turn.completed")) last_end = type;
    if (cli == "claude" && type == "result") last_end = j->value("is_error", false) ? "error" : "success";
    if (cli == "pi" && type == "message_end" && (*j)["message"].value("role", "") == "assistant")
      last_end = (*j)["message"].value("stopReason", "");
  }
  return last_end == (cli == "codex" ? "turn.failed" : "error");
}

TEST_F(agent_sim_binary, every_failure_kind_reports_and_exits_as_scripted) {
  fast_waits();
  struct kind_case {
    std::string failure;
    std::string needle;  // in agy's and the command agent's output
  };
  const std::vector<kind_case> cases{
      {"rate_limit", "429"}, {"resource_exhausted", "RESOURCE_EXHAUSTED"}, {"quota_exceeded", "quota"},
      {"context_length", "maximum context length"}, {"model_overloaded", "overloaded"},
      {"model_unavailable", "unavailable"}, {"connection_refused", "connection refused"},
      {"stream_disconnected", "stream disconnected"}, {"file_exists", "File already exists: " + (ws_ / "src/api.cpp").string()},
      {"file_not_found", "No such file or directory: " + (ws_ / "src/api.cpp").string()}, {"error", "agent failed"},
      {"usage_limit", "usage limit reached"}};
  int code = 10;
  for (const auto& c : cases) {
    ++code;
    std::string doc = R"({"defaults": {"worker": [{"kind": "events", "count": 1}, {"kind": "fail", "failure": ")" +
                      c.failure + R"(", "path": "src/api.cpp", "exit_code": )" + std::to_string(code) + "}]}}";
    env_.erase(std::remove_if(env_.begin(), env_.end(),
                              [](const std::string& e) { return e.rfind("AGENT_SIM_SCENARIO=", 0) == 0; }),
               env_.end());
    scenario(doc);
    // Rotate through the CLIs so each one reports some failures (codex
    // never ends on a refused connection: not its turn here).
    std::vector<std::string> argv;
    std::string cli;
    switch (code % 4) {
      case 0: argv = codex_argv(worker_prompt()), cli = "codex"; break;
      case 1: argv = claude_argv(worker_prompt()), cli = "claude"; break;
      case 2: argv = agy_argv(worker_prompt()), cli = "agy"; break;
      default: argv = pi_argv(worker_prompt()), cli = "pi"; break;
    }
    ASSERT_FALSE(cli == "codex" && c.failure == "connection_refused");
    auto r = run(argv);
    EXPECT_TRUE(r.exited(code)) << c.failure << " status " << r.status << " " << r.err;
    EXPECT_TRUE(reports_failure(cli, r.out, r.err, c.needle)) << cli << " " << c.failure << ":\n" << r.out << r.err;
  }
  EXPECT_EQ(records().size(), cases.size());
}

TEST_F(agent_sim_binary, without_an_exit_code_each_cli_exits_as_the_real_one) {
  fast_waits();
  scenario(R"({"defaults": {"worker": [{"kind": "fail", "failure": "model_unavailable"}]}})");
  EXPECT_TRUE(run(codex_argv(worker_prompt())).exited(1));
  EXPECT_TRUE(run(claude_argv(worker_prompt())).exited(1));
  EXPECT_TRUE(run(agy_argv(worker_prompt())).exited(1));
  auto pi = run(pi_argv(worker_prompt()));
  EXPECT_TRUE(pi.exited(0)) << "pi exits 0 whether or not the model call failed";
  EXPECT_NE(pi.out.find("\"stopReason\":\"error\""), std::string::npos);
  EXPECT_EQ(pi.err, "");
}

TEST_F(agent_sim_binary, codex_waits_for_the_network_until_a_signal_ends_it) {
  fast_waits();
  scenario(R"({"defaults": {"worker": [{"kind": "fail", "failure": "connection_refused"}]}})");
  auto p = start(codex_argv(worker_prompt()));
  std::size_t waiting = 0;
  for (int i = 0; i < 400 && waiting < 6; ++i) {
    std::this_thread::sleep_for(10ms);
    std::string out = read(p.out);
    waiting = 0;
    for (std::size_t at = 0; (at = out.find("Reconnecting... waiting for network", at)) != std::string::npos; ++at)
      ++waiting;
  }
  ASSERT_GE(waiting, 6u) << read(p.out);
  int status = 0;
  EXPECT_EQ(::waitpid(p.pid, &status, WNOHANG), 0) << "codex never gives up on the network";
  ASSERT_EQ(::kill(p.pid, SIGTERM), 0);
  auto r = wait(p);
  EXPECT_TRUE(r.killed_by(SIGTERM)) << r.status;
  EXPECT_EQ(r.out.find("turn.failed"), std::string::npos);
  EXPECT_EQ(records().at(0).exit_signal, "SIGTERM");
}

TEST_F(agent_sim_binary, claude_as_root_refuses_before_printing_anything) {
  scenario(R"({"defaults": {"worker": [{"kind": "fail", "failure": "root_refusal"}]}})");
  auto r = run(claude_argv(worker_prompt()));
  EXPECT_TRUE(r.exited(1));
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n");
  ASSERT_EQ(records().size(), 1u);
  EXPECT_EQ(records()[0].exit_code, 1);
  // Never by default, although these tests may run as root.
  env_.erase(std::remove_if(env_.begin(), env_.end(),
                            [](const std::string& e) { return e.rfind("AGENT_SIM_SCENARIO=", 0) == 0; }),
             env_.end());
  EXPECT_TRUE(run(claude_argv(worker_prompt())).exited(0));
}

TEST_F(agent_sim_binary, pi_prints_its_version_on_stderr_without_a_terminal) {
  auto r = run({(test::binary_dir() / "sim-bin/pi").string(), "--version"});
  EXPECT_TRUE(r.exited(0));
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "0.73.1\n");
  auto codex = run({(test::binary_dir() / "sim-bin/codex").string(), "--version"});
  EXPECT_EQ(codex.out, "codex-cli 0.171.0\n");
}

TEST_F(agent_sim_binary, fail_with_a_signal_dies_by_it_and_records_it) {
  fast_waits();
  scenario(R"({"defaults": {"worker": [{"kind": "fail", "failure": "error", "signal": "SIGKILL"}]}})");
  auto r = run(claude_argv(worker_prompt()));
  EXPECT_TRUE(r.killed_by(SIGKILL)) << r.status;
  auto runs = records();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].exit_signal, "SIGKILL");
}

TEST_F(agent_sim_binary, codex_collaboration_tool_is_announced) {
  scenario(R"({"defaults": {"review": [{"kind": "collab_tool", "tool": "spawn_agent"}]}})");
  auto r = run(codex_argv(review_prompt()));
  ASSERT_TRUE(r.exited(0)) << r.err;
  bool found = false;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    auto j = runtime::parse_json(line, "stdout");
    ASSERT_TRUE(j.is_ok()) << line;
    if ((*j)["type"] == "item.started" && (*j)["item"]["type"] == "collab_tool_call")
      found = (*j)["item"]["tool"] == "spawn_agent";
  }
  EXPECT_TRUE(found) << r.out;
}

TEST_F(agent_sim_binary, concurrent_runs_are_all_recorded_and_checked) {
  scenario(R"({"defaults": {"worker": [{"kind": "silence", "seconds": 0.5}, {"kind": "work"}]}})");
  std::vector<sim_process> running;
  for (int i = 1; i <= 3; ++i) {
    std::string name = "auth/0" + std::to_string(i) + "_part";
    fs::path plan = tmp_.write("ws/agent-task/" + name + "/PLAN-cloud-G05.md",
                               "<!-- task=" + name + " plan=1 tag=t -->\n## Modified Files Summary\n| File |\n|---|\n"
                               "| `src/part" + std::to_string(i) + ".cpp` |\n");
    tmp_.write("ws/agent-task/" + name + "/CODE_REVIEW-cloud-G05.md", review_text);
    running.push_back(start(codex_argv("Read " + plan.string() + " and complete the task.")));
  }
  // A second agent on the first task, at the same time: a violation to catch.
  running.push_back(start(claude_argv("Read " + (ws_ / "agent-task/auth/01_part/PLAN-cloud-G05.md").string() +
                                      " and complete the task.")));
  for (const auto& p : running) EXPECT_TRUE(wait(p).exited(0));
  auto runs = records();
  ASSERT_EQ(runs.size(), 4u);
  auto violations = check_registry(runs, 3);
  std::size_t task_overlaps = 0, path_overlaps = 0, too_many = 0;
  for (const auto& v : violations) {
    task_overlaps += v.kind == violation_kind::task_overlap;
    path_overlaps += v.kind == violation_kind::path_overlap;
    too_many += v.kind == violation_kind::too_many_alive;
  }
  EXPECT_EQ(task_overlaps, 1u);
  EXPECT_GE(path_overlaps, 1u);  // both wrote src/part1.cpp
  EXPECT_EQ(too_many, 1u);
  EXPECT_EQ(check_registry(runs, 4).size(), violations.size() - 1);
}

TEST_F(agent_sim_binary, native_session_files_on_request) {
  fs::path home = tmp_.path() / "home";
  env_.push_back("HOME=" + home.string());
  env_.push_back("AGENT_SIM_NATIVE_SESSIONS=1");
  auto claude = run(claude_argv(worker_prompt()));
  ASSERT_TRUE(claude.exited(0)) << claude.err;
  std::string encoded = ws_.string();
  for (char& ch : encoded)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '-';
  fs::path transcript = home / ".claude/projects" / encoded / "00000000-0000-4000-8000-0000000000aa.jsonl";
  std::string text = read(transcript);
  EXPECT_NE(text.find("\"sessionId\":\"00000000-0000-4000-8000-0000000000aa\""), std::string::npos) << transcript;

  auto codex = run(codex_argv(worker_prompt()));
  ASSERT_TRUE(codex.exited(0)) << codex.err;
  auto first = runtime::parse_json(codex.out.substr(0, codex.out.find('\n')), "stdout");
  ASSERT_TRUE(first.is_ok());
  std::string thread = (*first)["thread_id"];
  std::size_t found = 0;
  for (const auto& e : fs::recursive_directory_iterator(home / ".codex/sessions")) {
    if (!e.is_regular_file()) continue;
    ++found;
    EXPECT_NE(e.path().filename().string().find(thread), std::string::npos) << e.path();
    auto meta = runtime::parse_json(read(e.path()).substr(0, read(e.path()).find('\n')), "session");
    ASSERT_TRUE(meta.is_ok());
    EXPECT_EQ((*meta)["type"], "session_meta");
    EXPECT_EQ((*meta)["payload"]["id"], thread);
  }
  EXPECT_EQ(found, 1u);
}

TEST_F(agent_sim_binary, no_native_session_files_by_default) {
  fs::path home = tmp_.path() / "home";
  env_.push_back("HOME=" + home.string());
  ASSERT_TRUE(run(claude_argv(worker_prompt())).exited(0));
  ASSERT_TRUE(run(codex_argv(worker_prompt())).exited(0));
  EXPECT_FALSE(fs::exists(home));
}

TEST_F(agent_sim_binary, exit_action_uses_its_code) {
  scenario(R"({"defaults": {"worker": [{"kind": "exit", "code": 7}]}})");
  EXPECT_TRUE(run(codex_argv(worker_prompt())).exited(7));
}

TEST_F(agent_sim_binary, silence_holds_output_for_its_duration) {
  scenario(R"({"defaults": {"worker": [{"kind": "silence", "seconds": 0.4}, {"kind": "events", "count": 1}]}})");
  auto before = std::chrono::steady_clock::now();
  auto r = run(pi_argv(worker_prompt()));
  auto elapsed = std::chrono::steady_clock::now() - before;
  EXPECT_TRUE(r.exited(0)) << r.err;
  EXPECT_GE(elapsed, 400ms);
  EXPECT_NE(r.out.find("\"agent_end\""), std::string::npos);
}

TEST_F(agent_sim_binary, hang_ends_only_by_a_signal_which_is_recorded) {
  scenario(R"({"defaults": {"worker": [{"kind": "hang", "in": "tool_call"}]}})");
  auto p = start(pi_argv(worker_prompt()));
  bool pending = false;
  for (int i = 0; i < 200 && !pending; ++i) {
    std::this_thread::sleep_for(20ms);
    pending = read(p.out).find("\"tool_execution_start\"") != std::string::npos;
  }
  ASSERT_TRUE(pending) << read(p.out);
  std::this_thread::sleep_for(200ms);
  int status = 0;
  EXPECT_EQ(::waitpid(p.pid, &status, WNOHANG), 0) << "a hanging agent must not exit by itself";
  ASSERT_EQ(::kill(p.pid, SIGTERM), 0);
  auto r = wait(p);
  EXPECT_TRUE(r.killed_by(SIGTERM)) << r.status;
  auto runs = records();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].exit_signal, "SIGTERM");
  // The native session shows a tool call without a result.
  bool found = false;
  for (const auto& e : fs::directory_iterator(tmp_.path() / "attempt/pi-sessions")) {
    std::string text = read(e.path());
    found = text.find("\"toolCall\"") != std::string::npos && text.find("\"toolResult\"") == std::string::npos;
  }
  EXPECT_TRUE(found);
}

TEST_F(agent_sim_binary, spawned_child_outlives_the_agent_in_its_process_group) {
  scenario(R"({"defaults": {"worker": [{"kind": "spawn_child", "seconds": 30}, {"kind": "exit", "code": 0}]}})");
  auto p = start(agy_argv(worker_prompt()));
  auto r = wait(p);
  ASSERT_TRUE(r.exited(0)) << r.err;
  auto runs = records();
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_EQ(runs[0].children.size(), 1u);
  pid_t child = runs[0].children[0];
  EXPECT_EQ(::kill(child, 0), 0) << "the child must outlive the agent";
  EXPECT_EQ(::getpgid(child), p.pid) << "the child must stay in the agent's process group";
  ASSERT_EQ(::killpg(p.pid, SIGKILL), 0);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    std::string stat = read("/proc/" + std::to_string(child) + "/stat");
    auto close = stat.rfind(')');
    gone = stat.empty() || (close != std::string::npos && stat.substr(close + 2, 1) == "Z");
    if (!gone) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(gone) << "a group kill must reap the child";
}

TEST_F(agent_sim_binary, failing_review_starts_a_follow_up_plan) {
  scenario(R"({"tasks": {"auth/02+01_api": {"review": {"1": [{"kind": "review", "verdict": "FAIL"}]}}}})");
  auto r = run(codex_argv(review_prompt()));
  ASSERT_TRUE(r.exited(0)) << r.err;
  fs::path dir = plan_.parent_path();
  EXPECT_TRUE(fs::exists(dir / "plan_cloud_G05_1.log"));
  EXPECT_TRUE(fs::exists(dir / "code_review_cloud_G05_1.log"));
  auto id = read_plan_identity(read(plan_));
  ASSERT_TRUE(id.is_ok());
  EXPECT_EQ(id->plan, 2);
  EXPECT_TRUE(fs::exists(review_));
}

TEST_F(agent_sim_binary, agy_and_pi_write_their_side_files) {
  ASSERT_TRUE(run(agy_argv(worker_prompt())).exited(0));
  EXPECT_NE(read(tmp_.path() / "attempt/agy-cli.log").find("INFO request completed"), std::string::npos);
  auto pi = run(pi_argv("Read " + review_.string() + " and fill every missing implementation field."));
  ASSERT_TRUE(pi.exited(0)) << pi.err;
  // pi names its session: the id of its first event names the file.
  auto header = runtime::parse_json(pi.out.substr(0, pi.out.find('\n')), "stdout");
  ASSERT_TRUE(header.is_ok());
  std::string id = (*header)["id"];
  std::size_t sessions = 0;
  for (const auto& e : fs::directory_iterator(tmp_.path() / "attempt/pi-sessions")) {
    ++sessions;
    EXPECT_TRUE(e.path().filename().string().ends_with("_" + id + ".jsonl")) << e.path();
  }
  EXPECT_EQ(sessions, 1u);
  EXPECT_EQ(records().back().role, "selfcheck");
}

TEST_F(agent_sim_binary, command_mode_takes_task_and_role_flags) {
  auto r = run({(test::binary_dir() / "agent-sim").string(), "--as", "command", "--task", "auth/02+01_api",
                "--role", "worker", "--workspace", ws_.string()});
  ASSERT_TRUE(r.exited(0)) << r.err;
  EXPECT_NE(r.out.find("Finished worker of auth/02+01_api (attempt 1)."), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(ws_ / "src/api.cpp"));
}

TEST_F(agent_sim_binary, attempt_falls_back_to_the_marker) {
  env_ = {"AGENT_DISPATCH_EXECUTION_ID=wabc__auth_02_api__p1__worker__a03__x"};
  auto r = run({(test::binary_dir() / "agent-sim").string(), "--as", "command", "--task", "auth/02+01_api",
                "--workspace", ws_.string(), "--role", "worker"});
  ASSERT_TRUE(r.exited(0)) << r.err;
  EXPECT_NE(r.out.find("(attempt 3)"), std::string::npos) << r.out;
}

TEST_F(agent_sim_binary, bad_scenario_exits_2_naming_the_pointer) {
  scenario(R"({"tasks": {"auth/02_api": {"worker": {"1": {"actions": [{"kind": "explode"}]}}}}})");
  auto r = run(codex_argv(worker_prompt()));
  EXPECT_TRUE(r.exited(2));
  EXPECT_NE(r.err.find("/tasks/auth~102_api/worker/1/actions/0/kind: unknown action \"explode\""), std::string::npos)
      << r.err;
}

TEST_F(agent_sim_binary, prompt_without_a_task_exits_2) {
  auto r = run(claude_argv("Say hello."));
  EXPECT_TRUE(r.exited(2));
  EXPECT_NE(r.err.find("cannot tell the task"), std::string::npos) << r.err;
}

TEST_F(agent_sim_binary, own_modes_check_registry_demo_and_help) {
  std::string sim = (test::binary_dir() / "agent-sim").string();
  auto help = run({sim, "--help"});
  EXPECT_TRUE(help.exited(0));
  EXPECT_NE(help.out.find("SCENARIO FORMAT"), std::string::npos);

  fs::path demo = tmp_.path() / "demo.json";
  ASSERT_TRUE(run({sim, "demo-scenario", "--out", demo.string(), "--task", "auth/02+01_api"}).exited(0));
  auto valid = run({sim, "validate-scenario", demo.string()});
  EXPECT_TRUE(valid.exited(0)) << valid.err;
  fs::path broken = tmp_.write("broken.json", R"({"defaults": {"review": [{"kind": "review", "verdict": "OK"}]}})");
  auto invalid = run({sim, "validate-scenario", broken.string()});
  EXPECT_TRUE(invalid.exited(2));
  EXPECT_NE(invalid.err.find("/defaults/review/0/verdict"), std::string::npos) << invalid.err;

  run_record a;
  a.task = "t";
  a.start_ms = 0;
  a.end_ms = 10;
  run_record b = a;
  b.start_ms = 5;
  b.end_ms = 15;
  fs::path reg = tmp_.path() / "crafted.jsonl";
  ASSERT_TRUE(append_record(reg, a).is_ok());
  ASSERT_TRUE(append_record(reg, b).is_ok());
  auto bad = run({sim, "check-registry", reg.string(), "--max-parallel", "1"});
  EXPECT_TRUE(bad.exited(1));
  EXPECT_NE(bad.out.find("two live agents for task t"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("2 agents alive"), std::string::npos) << bad.out;
  fs::path clean = tmp_.path() / "clean.jsonl";
  ASSERT_TRUE(append_record(clean, a).is_ok());
  EXPECT_TRUE(run({sim, "check-registry", clean.string()}).exited(0));
  EXPECT_TRUE(run({sim, "check-registry", (tmp_.path() / "missing").string()}).exited(2));
}

} // namespace
} // namespace ad::agent_sim
