// End-to-end: `agent-dispatch run` over generated workspaces with the agent
// simulator first on PATH; the simulator registry checks the invariants.
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "runtime/core/files.hpp"
#include "tests/e2e/run_binary.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text_lines.hpp"

namespace ad::test {
namespace {

namespace fs = std::filesystem;

// One PLAN + CODE_REVIEW pair (SPEC section 2) and the files it claims.
void write_task(const temp_dir& ws, const std::string& task, const std::string& lane,
                const std::vector<std::string>& files) {
  test::write_plan_and_review(ws.path(), task, lane, files);
  for (const auto& f : files)
    ws.write(f, "// " + f + "\n");
}

class run_loop : public ::testing::Test {
protected:
  void SetUp() override {
    saved_path_ = std::getenv("PATH") ? std::getenv("PATH") : "";
    std::string path = (binary_dir() / "sim-bin").string() + ":" + saved_path_;
    ::setenv("PATH", path.c_str(), 1);
    ::setenv("XDG_STATE_HOME", (state_.path() / "xdg").c_str(), 1);
    ::setenv("AGENT_SIM_REGISTRY", registry().c_str(), 1);
    ::setenv("AGENT_SIM_TIME_SCALE", "0.01", 1);
    ::unsetenv("AGENT_SIM_SCENARIO");
  }
  void TearDown() override {
    ::setenv("PATH", saved_path_.c_str(), 1);
    ::unsetenv("XDG_STATE_HOME");
    ::unsetenv("AGENT_SIM_REGISTRY");
    ::unsetenv("AGENT_SIM_TIME_SCALE");
    ::unsetenv("AGENT_SIM_SCENARIO");
  }
  std::string registry() const { return (state_.path() / "registry.jsonl").string(); }
  run_output check_registry(int max_parallel) const {
    return run_binary((binary_dir() / "agent-sim").string(),
                      {"check-registry", registry(), "--max-parallel",
                       std::to_string(max_parallel)});
  }
  int archived_count(const temp_dir& ws) const {
    int n = 0;
    fs::path archive = ws.path() / "agent-task" / "archive";
    if (!fs::exists(archive))
      return 0;
    for (const auto& e : fs::recursive_directory_iterator(archive))
      if (e.path().filename() == "complete.log")
        ++n;
    return n;
  }

  temp_dir state_;
  std::string saved_path_;
};

TEST_F(run_loop, dependent_tasks_with_overlapping_writes_complete_and_a_second_run_is_done) {
  temp_dir ws;
  ws.write("README.md", "demo\n");
  write_task(ws, "app/01_model", "cloud", {"src/model.cpp"});
  write_task(ws, "app/02+01_api", "local", {"src/api.cpp", "src/shared.cpp"});
  write_task(ws, "app/03+01_cli", "cloud", {"src/cli.cpp", "src/shared.cpp"});
  write_task(ws, "app/04+02,03_docs", "cloud", {"docs/guide.md"});
  write_task(ws, "lib/01_util", "cloud", {"src/util.cpp"});

  auto r = run_binary(agent_dispatch(),
                      {"run", "--workspace", ws.path().string(), "--max-parallel", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "complete")) << r.out;
  EXPECT_EQ(archived_count(ws), 5);
  EXPECT_FALSE(fs::exists(ws.path() / "agent-task/app/01_model"));

  auto check = check_registry(2);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;

  // The local-lane task ran a self-check after its worker.
  std::ifstream reg(registry());
  std::string line;
  bool selfcheck = false;
  int runs = 0;
  while (std::getline(reg, line)) {
    ++runs;
    if (contains(line, "\"role\":\"selfcheck\"") && contains(line, "app/02+01_api"))
      selfcheck = true;
  }
  EXPECT_TRUE(selfcheck);
  EXPECT_GE(runs, 11); // 5 workers, 5 reviews, 1 self-check

  auto again = run_binary(agent_dispatch(), {"run", "--workspace", ws.path().string()});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  std::ifstream reg2(registry());
  int runs2 = 0;
  while (std::getline(reg2, line))
    ++runs2;
  EXPECT_EQ(runs2, runs) << "a second run must start no agent";
}

// A workspace whose path holds spaces: every prompt quotes its paths, the
// simulator finds its task from them, and the run completes.
TEST_F(run_loop, a_workspace_path_with_spaces_completes) {
  temp_dir dir;
  fs::path ws = dir.path() / "my project" / "two  spaces";
  fs::create_directories(ws);
  test::write_plan_and_review(ws, "app/01_model", "cloud", {"src/model.cpp"});
  test::write_plan_and_review(ws, "app/02+01_api", "local", {"src/api.cpp"});
  auto r = run_binary(agent_dispatch(), {"run", "--workspace", ws.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(ws / "agent-task/archive"));
  EXPECT_FALSE(fs::exists(ws / "agent-task/app/01_model"));
  EXPECT_FALSE(fs::exists(ws / "agent-task/app/02+01_api"));
}

// The README's main command: the demo workspace (the standard demo with its
// two held tasks resolved) run for real with the demo scenario's failures (a
// rate limit, a pi stream disconnect that fails over natively, "file already
// exists", a silent agent with a failed first review) and its recovery
// folder reviewed again.
TEST_F(run_loop, the_demo_workspace_completes_and_a_second_run_reports_all_complete) {
  temp_dir dir;
  fs::path ws = dir.path() / "demo-workspace";
  auto gen = run_binary((binary_dir() / "ad-demo-gen").string(),
                        {ws.string(), "--scenario", "resolved"});
  ASSERT_EQ(gen.exit_code, 0) << gen.out << gen.err;
  fs::path scenario = state_.path() / "scenario.json";
  auto sc = run_binary((binary_dir() / "agent-sim").string(),
                       {"demo-scenario", "--out", scenario.string(), "--task", "infra", "--task",
                        "docs/01_api_reference", "--task", "auth/02+01_session_store", "--task",
                        "billing/01_invoice_schema"});
  ASSERT_EQ(sc.exit_code, 0) << sc.out << sc.err;
  ::setenv("AGENT_SIM_SCENARIO", scenario.c_str(), 1);

  auto r = run_binary(agent_dispatch(),
                      {"run", "--workspace", ws.string(), "--max-parallel", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "all 13 observed task(s) complete")) << r.out;
  EXPECT_FALSE(contains(r.out, "task_blocked")) << r.out;
  // The scripted failures happened and were recovered.
  EXPECT_TRUE(contains(r.out, "class=provider-stream-disconnect")) << r.out;
  EXPECT_TRUE(contains(r.out, "failover docs/01_api_reference role=worker from=pi-laguna-s"))
    << r.out;

  // Every task sits in the archive with complete.log; no task folder is left.
  const std::vector<std::string> tasks = {
    "auth/02+01_session_store",   "auth/03+02_login_api",     "auth/04+02,03_logout_api",
    "auth/05_password_policy",    "billing/01_invoice_schema", "billing/02+01_tax_rules",
    "billing/03_currency_format", "billing/04_refund_flow",   "docs/01_api_reference",
    "docs/02_changelog",          "docs/03+01_tutorial",      "docs/04+01,02_release_notes",
    "infra"};
  std::map<std::string, int> archived;
  std::set<std::string> work_log_groups;
  for (const auto& e : fs::recursive_directory_iterator(ws / "agent-task" / "archive")) {
    auto rel = e.path().lexically_relative(ws / "agent-task" / "archive").generic_string();
    // <YYYY>/<MM>/<group>[/<subtask>]/complete.log, <YYYY>/<MM>/<group>/work_log_<n>.log
    auto rest = rel.substr(std::min<size_t>(rel.size(), 8));
    if (e.path().filename() == "complete.log")
      ++archived[fs::path(rest).parent_path().generic_string()];
    if (e.path().filename().string().rfind("work_log_", 0) == 0)
      work_log_groups.insert(fs::path(rest).parent_path().generic_string());
  }
  for (const auto& t : tasks) {
    EXPECT_EQ(archived[t], 1) << t << " is not archived once with complete.log";
  }
  EXPECT_EQ(archived["auth/01_user_model"], 1); // the predecessor archived before the run
  for (const auto& group : {"auth", "billing", "docs", "infra"}) {
    EXPECT_TRUE(work_log_groups.count(group)) << group << ": work log not archived";
    EXPECT_FALSE(fs::exists(ws / "agent-task" / group / "WORK_LOG.md")) << group;
  }
  for (const auto& e : fs::recursive_directory_iterator(ws / "agent-task")) {
    auto rel = e.path().lexically_relative(ws / "agent-task").generic_string();
    EXPECT_TRUE(rel.rfind("archive", 0) == 0 || e.is_directory()) << rel << " left behind";
  }

  auto check = check_registry(4);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  auto count_runs = [&] {
    std::ifstream reg(registry());
    std::string line;
    int n = 0;
    while (std::getline(reg, line))
      ++n;
    return n;
  };
  int runs = count_runs();
  EXPECT_GE(runs, 13 * 2 + 4) << "a worker and a review per task, plus the failed attempts";

  auto again = run_binary(agent_dispatch(), {"run", "--workspace", ws.string()});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_TRUE(contains(again.out, "all 13 observed task(s) complete")) << again.out;
  EXPECT_EQ(count_runs(), runs) << "a second run must start no agent";
}

TEST_F(run_loop, failures_are_recovered_through_the_supervisor) {
  temp_dir ws;
  write_task(ws, "g/01_a", "cloud", {"src/a.cpp"});
  write_task(ws, "g/02_b", "cloud", {"src/b.cpp"});
  auto scenario = state_.write("scenario.json", R"({"version": 1, "tasks": {
    "g/01_a": {"worker": {"1": {"actions": [{"kind": "fail", "failure": "stream_disconnected"}]}}},
    "g/02_b": {"review": {"1": {"actions": [{"kind": "review", "verdict": "FAIL"}]}}}}})");
  ::setenv("AGENT_SIM_SCENARIO", scenario.c_str(), 1);
  auto r = run_binary(agent_dispatch(), {"run", "--workspace", ws.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(archived_count(ws), 2);
  auto check = check_registry(0);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

TEST_F(run_loop, a_blocked_task_exits_2_with_its_reason) {
  temp_dir ws;
  write_task(ws, "g/01_ok", "cloud", {"src/ok.cpp"});
  ws.write("agent-task/g/02_bad/PLAN-cloud-G05.md", "no header, no table\n");
  auto r = run_binary(agent_dispatch(), {"run", "--workspace", ws.path().string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "g/02_bad")) << r.out;
  EXPECT_EQ(archived_count(ws), 1);
}

// The keeper is required: a run without one starts no agent and says how
// to fix it.
TEST_F(run_loop, a_run_without_its_keeper_exits_2_with_the_fix_and_starts_nothing) {
  temp_dir ws;
  write_task(ws, "g/01_ok", "cloud", {"src/ok.cpp"});
  auto missing = (state_.path() / "no-such-keeper").string();
  ::setenv("AD_KEEPER", missing.c_str(), 1);
  auto r = run_binary(agent_dispatch(), {"run", "--workspace", ws.path().string()});
  ::unsetenv("AD_KEEPER");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "AD_KEEPER names " + missing)) << r.err;
  EXPECT_FALSE(fs::exists(registry())) << "an agent ran without its keeper";
  EXPECT_EQ(archived_count(ws), 0);
}

TEST_F(run_loop, a_second_dispatcher_exits_3_naming_the_owner) {
  temp_dir ws;
  write_task(ws, "g/01_slow", "cloud", {"src/slow.cpp"});
  auto scenario = state_.write("scenario.json", R"({"version": 1, "defaults": {
    "worker": [{"kind": "silence", "seconds": 300}, {"kind": "work"}]}})");
  ::setenv("AGENT_SIM_SCENARIO", scenario.c_str(), 1);
  std::string program = agent_dispatch();
  std::string workspace = ws.path().string();
  pid_t first = ::fork();
  ASSERT_GE(first, 0);
  if (first == 0) {
    ::freopen("/dev/null", "w", stdout);
    ::execl(program.c_str(), program.c_str(), "run", "--workspace", workspace.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait until the first dispatcher holds the lock (its lock file names it).
  bool started = false;
  for (int i = 0; i < 400 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::error_code ec;
    fs::path xdg = state_.path() / "xdg";
    if (!fs::exists(xdg, ec))
      continue;
    for (fs::recursive_directory_iterator it(xdg, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename() == "stream.log")
        started = true;
  }
  ASSERT_TRUE(started);
  auto second = run_binary(agent_dispatch(), {"run", "--workspace", workspace});
  EXPECT_EQ(second.exit_code, 3) << second.out << second.err;
  EXPECT_TRUE(contains(second.err, "pid " + std::to_string(first))) << second.err;
  ::kill(first, SIGKILL);
  int status = 0;
  ::waitpid(first, &status, 0);
}

} // namespace
} // namespace ad::test
