#include "tools/agent-sim/registry.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/temp_dir.hpp"

namespace ad::agent_sim {
namespace {

run_record run(std::string task, runtime::millis start, runtime::millis end,
               std::vector<std::string> files = {}) {
  run_record r;
  r.task = std::move(task);
  r.role = "worker";
  r.attempt = 1;
  r.pid = 100;
  r.start_ms = start;
  r.end_ms = end;
  r.files_written = std::move(files);
  return r;
}

std::vector<violation_kind> kinds(const std::vector<registry_violation>& v) {
  std::vector<violation_kind> out;
  for (const auto& x : v) out.push_back(x.kind);
  return out;
}

TEST(registry_check, a_clean_history_has_no_violations) {
  std::vector<run_record> runs{run("a/01_x", 0, 100, {"/w/a"}), run("a/01_x", 100, 200, {"/w/a"}),
                               run("a/02_y", 50, 150, {"/w/b"})};
  EXPECT_TRUE(check_registry(runs, 2).empty());
}

TEST(registry_check, two_live_agents_for_one_task) {
  auto v = check_registry({run("a/01_x", 0, 100), run("a/01_x", 99, 200)}, 0);
  ASSERT_EQ(kinds(v), std::vector<violation_kind>{violation_kind::task_overlap});
  EXPECT_NE(v[0].message.find("two live agents for task a/01_x"), std::string::npos) << v[0].message;
}

TEST(registry_check, concurrent_writers_of_one_path) {
  auto v = check_registry({run("a/01_x", 0, 100, {"/w/a", "/w/c"}), run("a/02_y", 10, 20, {"/w/b", "/w/c"})}, 0);
  ASSERT_EQ(kinds(v), std::vector<violation_kind>{violation_kind::path_overlap});
  EXPECT_NE(v[0].message.find("concurrent writers of /w/c"), std::string::npos) << v[0].message;
  // The same path written one after the other is fine.
  EXPECT_TRUE(check_registry({run("a/01_x", 0, 10, {"/w/c"}), run("a/02_y", 10, 20, {"/w/c"})}, 0).empty());
}

TEST(registry_check, too_many_alive_at_once) {
  std::vector<run_record> runs{run("a", 0, 100), run("b", 10, 100), run("c", 20, 30), run("d", 100, 120)};
  auto v = check_registry(runs, 2);
  ASSERT_EQ(kinds(v), std::vector<violation_kind>{violation_kind::too_many_alive});
  EXPECT_NE(v[0].message.find("3 agents alive"), std::string::npos) << v[0].message;
  EXPECT_TRUE(check_registry(runs, 3).empty());
  EXPECT_TRUE(check_registry(runs, 0).empty());
}

TEST(registry_file, round_trips_and_reports_bad_lines) {
  test::temp_dir tmp;
  auto path = tmp.path() / "reg.jsonl";
  run_record r = run("a/01_x", 5, 9, {"/w/a"});
  r.exit_signal = "SIGTERM";
  r.children = {77};
  r.argv = {"codex", "exec"};
  ASSERT_TRUE(append_record(path, r).is_ok());
  ASSERT_TRUE(append_record(path, run("a/02_y", 1, 2)).is_ok());
  auto back = read_registry(path);
  ASSERT_TRUE(back.is_ok()) << back.error().to_string();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].exit_signal, "SIGTERM");
  EXPECT_EQ((*back)[0].children, std::vector<int>{77});
  EXPECT_EQ((*back)[0].files_written, std::vector<std::string>{"/w/a"});
  EXPECT_EQ((*back)[1].exit_code, 0);

  auto bad = tmp.write("bad.jsonl", "{\"task\":\"a\",\"start_ms\":1,\"end_ms\":2,\"exit\":{}}\n{\"task\":1}\n");
  auto err = read_registry(bad);
  ASSERT_FALSE(err.is_ok());
  EXPECT_NE(err.error().message().find("bad.jsonl:2"), std::string::npos) << err.error().message();

  // 1e300 as an int was undefined behaviour (UBSan: float-cast-overflow).
  auto huge = tmp.write("huge.jsonl",
                        "{\"task\":\"a\",\"pid\":1e300,\"start_ms\":1,\"end_ms\":2,\"exit\":{}}\n");
  auto refused = read_registry(huge);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.error().message().find("holds 1e+300 where an integer belongs"),
            std::string::npos)
    << refused.error().message();
}

TEST(registry_file, concurrent_appends_never_interleave) {
  test::temp_dir tmp;
  auto path = tmp.path() / "reg.jsonl";
  constexpr int writers = 8, per_writer = 50;
  std::vector<pid_t> pids;
  for (int w = 0; w < writers; ++w) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::string big(3000, 'x');  // longer than a pipe-atomic write
      for (int i = 0; i < per_writer; ++i) {
        run_record r = run("t" + std::to_string(w), i, i + 1, {big});
        if (!append_record(path, r).is_ok()) ::_exit(1);
      }
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto back = read_registry(path);
  ASSERT_TRUE(back.is_ok()) << back.error().to_string();
  EXPECT_EQ(back->size(), static_cast<std::size_t>(writers * per_writer));
}

TEST(attempt_counter, counts_per_task_and_role) {
  test::temp_dir tmp;
  auto file = tmp.path() / "attempts.json";
  EXPECT_EQ(next_attempt(file, "a/01_x", "worker").value(), 1);
  EXPECT_EQ(next_attempt(file, "a/01_x", "worker").value(), 2);
  EXPECT_EQ(next_attempt(file, "a/01_x", "review").value(), 1);
  EXPECT_EQ(next_attempt(file, "a/02_y", "worker").value(), 1);
  EXPECT_EQ(next_attempt(file, "a/01_x", "worker").value(), 3);
}

} // namespace
} // namespace ad::agent_sim
