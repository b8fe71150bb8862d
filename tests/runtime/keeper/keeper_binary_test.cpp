// The built ad-keeper with the scripted test agent: what it records for an
// agent that exits, dies of a signal or never starts, what the agent gets
// (marker, environment, cwd, session), and bad usage.

#include <gtest/gtest.h>
#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/core/clock.hpp"
#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/keeper_records.hpp"
#include "tests/runtime/keeper/keeper_harness.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::test::keeper {
namespace {

namespace fs = std::filesystem;
using runtime::keeper_end;
using runtime::keeper_initiator;

TEST(ad_keeper, an_agent_that_exits_leaves_its_output_code_and_identity) {
  temp_dir dir;
  fs::create_directory(dir.path() / "ws");
  auto inv = invocation(dir.path(), {"out:hello", "err:oops", "pidfile:" + (dir.path() / "agent.pid").string(),
                                     "env:AGENT_DISPATCH_EXECUTION_ID", "env:EXTRA", "cwd", "out:bye", "exit:3"});
  inv.env = {{"EXTRA", "x=1"}};
  inv.cwd = dir.path() / "ws";
  runtime::millis before = runtime::system_clock().now();
  auto r = run_keeper(inv);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "") << "the keeper's stdout and stderr stay quiet";

  auto e = exit_record_of(dir.path());
  EXPECT_EQ(e.end, keeper_end::exited);
  EXPECT_EQ(e.exit_code, 3);
  EXPECT_EQ(e.signal, 0);
  EXPECT_EQ(e.reason, "");
  EXPECT_EQ(e.termination, (runtime::keeper_termination{keeper_initiator::none, 0}));
  EXPECT_EQ(e.stream.lines, 6u);
  EXPECT_GE(e.ended_at_ms, before);

  // Each channel in order (the two channels interleave as they are read).
  std::vector<std::string> out, err;
  for (const auto& l : lines_of(read_text(dir.path() / "stream.log")))
    (l.rfind("[stderr] ", 0) == 0 ? err : out).push_back(l);
  EXPECT_EQ(out, (std::vector<std::string>{"[stdout] hello", "[stdout] AGENT_DISPATCH_EXECUTION_ID=" + inv.marker,
                                           "[stdout] EXTRA=x=1", "[stdout] " + (dir.path() / "ws").string(),
                                           "[stdout] bye"}));
  EXPECT_EQ(err, (std::vector<std::string>{"[stderr] oops"}));
  EXPECT_EQ(e.stream.bytes, read_text(dir.path() / "stream.log").size());

  auto k = runtime::read_keeper_record(dir.path());
  ASSERT_TRUE(k.is_ok()) << k.error().to_string();
  EXPECT_EQ(std::to_string(k->agent_pid), read_text(dir.path() / "agent.pid"));
  EXPECT_EQ(k->agent_pgid, k->agent_pid);
  EXPECT_NE(k->keeper_pid, k->agent_pid);
  EXPECT_GT(k->keeper_pid, 0);
  EXPECT_FALSE(k->keeper_start_token.empty());
  EXPECT_FALSE(k->agent_start_token.empty());
  EXPECT_EQ(k->marker, inv.marker);
  EXPECT_EQ(k->argv0, test_agent().string());
  EXPECT_GE(k->started_at_ms, before);
  EXPECT_LE(k->started_at_ms, e.ended_at_ms);
  EXPECT_EQ(k->line_cap, inv.line_cap);
  EXPECT_NE(read_text(dir.path() / "keeper.log").find("the agent exited with code 3"), std::string::npos);
}

TEST(ad_keeper, a_signal_death_is_recorded_as_128_plus_the_signal) {
  for (int sig : {SIGKILL, SIGSEGV}) {
    temp_dir dir;
    auto r = run_keeper(invocation(dir.path(), {"out:before", "kill:" + std::to_string(sig)}));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto e = exit_record_of(dir.path());
    EXPECT_EQ(e.end, keeper_end::signaled);
    EXPECT_EQ(e.signal, sig);
    EXPECT_EQ(e.exit_code, 128 + sig);
    EXPECT_EQ(e.termination.initiator, keeper_initiator::none);
    EXPECT_EQ(read_text(dir.path() / "stream.log"), "[stdout] before\n");
  }
}

TEST(ad_keeper, an_agent_that_cannot_start_is_a_launch_failure_with_code_127) {
  temp_dir files;
  auto plain = files.write("plain.txt", "not a program\n"); // mode 0644
  struct launch_case {
    std::vector<std::string> argv;
    fs::path cwd;
    std::string reason;
  };
  for (const auto& c : std::vector<launch_case>{
         {{"/nonexistent/agent", "x"}, {}, "command not found: /nonexistent/agent"},
         {{"no-such-agent-on-path"}, {}, "command not found: no-such-agent-on-path"},
         {{plain.string()}, {}, "cannot execute " + plain.string() + ": Permission denied"},
         {{test_agent().string()}, "/nonexistent/cwd",
          "cannot enter the working directory /nonexistent/cwd: No such file or directory"}}) {
    temp_dir dir;
    auto inv = invocation(dir.path(), {});
    inv.agent_argv = c.argv;
    inv.cwd = c.cwd;
    auto r = run_keeper(inv);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto e = exit_record_of(dir.path());
    EXPECT_EQ(e.end, keeper_end::launch_failed);
    EXPECT_EQ(e.exit_code, 127);
    EXPECT_EQ(e.reason, c.reason);
    EXPECT_FALSE(fs::exists(dir.path() / "keeper.json")) << "no agent ran";
    EXPECT_EQ(read_text(dir.path() / "stream.log"), "");
  }
}

TEST(ad_keeper, the_agent_runs_in_its_own_session_with_the_marker_replacing_an_inherited_one) {
  temp_dir dir, out;
  auto pidfile = dir.path() / "agent.pid";
  auto inv = invocation(dir.path(), {"pidfile:" + pidfile.string(), "sleep:20000"});
  inv.env = {{"EXTRA", "1"}};
  pid_t keeper = spawn_keeper(runtime::keeper_arguments(inv), out.path() / "out", session_choice::own_session,
                              {"AGENT_DISPATCH_EXECUTION_ID=stale-marker"});
  ASSERT_TRUE(eventually([&] { return fs::exists(pidfile); }));
  int agent = std::stoi(read_text(pidfile));
  std::string environ_text = read_text("/proc/" + std::to_string(agent) + "/environ");
  std::vector<std::string> env;
  for (std::size_t at = 0; at < environ_text.size();) {
    auto end = environ_text.find('\0', at);
    env.push_back(environ_text.substr(at, end - at));
    at = end == std::string::npos ? environ_text.size() : end + 1;
  }
  EXPECT_EQ(std::count(env.begin(), env.end(), "AGENT_DISPATCH_EXECUTION_ID=" + inv.marker), 1);
  EXPECT_EQ(std::count(env.begin(), env.end(), "AGENT_DISPATCH_EXECUTION_ID=stale-marker"), 0);
  EXPECT_EQ(std::count(env.begin(), env.end(), "EXTRA=1"), 1);
  EXPECT_EQ(processes_with_marker(inv.marker), std::vector<int>{agent});
  // /proc/<pid>/stat after the name: state ppid pgrp session.
  std::string stat = read_text("/proc/" + std::to_string(agent) + "/stat");
  char state = 0;
  int ppid = 0, pgrp = 0, session = 0;
  ASSERT_EQ(std::sscanf(stat.c_str() + stat.rfind(')') + 1, " %c %d %d %d", &state, &ppid, &pgrp, &session), 4);
  EXPECT_EQ(ppid, keeper);
  EXPECT_EQ(pgrp, agent);
  EXPECT_EQ(session, agent);
  ::kill(keeper, SIGTERM);
  auto st = wait_for_exit(keeper, 10s);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(WEXITSTATUS(*st), 0);
}

TEST(ad_keeper, a_long_line_is_cut_and_an_unterminated_last_line_counts) {
  temp_dir dir;
  auto inv = invocation(dir.path(), {"long:5000", "out:after", "raw:no newline"});
  inv.line_cap = 1000;
  auto r = run_keeper(inv);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto lines = lines_of(read_text(dir.path() / "stream.log"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "[stdout] " + std::string(1000, 'x') + " [line cut: 4000 bytes dropped]");
  EXPECT_EQ(lines[1], "[stdout] after");
  EXPECT_EQ(lines[2], "[stdout] no newline");
  auto e = exit_record_of(dir.path());
  EXPECT_EQ(e.stream.lines, 3u);
  EXPECT_EQ(e.stream.dropped_line_bytes, 4000u);
}

TEST(ad_keeper, bad_usage_exits_2_naming_the_option) {
  temp_dir out;
  struct usage_case {
    std::vector<std::string> args;
    std::string message;
  };
  temp_dir dir;
  auto touched = dir.path() / "started";
  for (const auto& c : std::vector<usage_case>{
         {{}, "ad-keeper: --attempt-dir is required"},
         {{"--attempt-dir", dir.path().string(), "--marker", "m", "--grace-ms", "soon", "--", "x"},
          "ad-keeper: --grace-ms: expected a number of milliseconds, got 'soon'"},
         {{"--attempt-dir", dir.path().string(), "--marker", "m", "--lease-file", "/nonexistent/lease",
           "--lease-ms", "100", "--", test_agent().string(), "touch:" + touched.string()},
          "ad-keeper: --lease-file: /nonexistent/lease does not exist"}}) {
    auto file = out.path() / ("out" + std::to_string(c.args.size()));
    pid_t pid = spawn_keeper(c.args, file);
    auto st = wait_for_exit(pid, 10s);
    ASSERT_TRUE(st.has_value());
    EXPECT_EQ(WEXITSTATUS(*st), 2);
    std::string text = read_text(file);
    EXPECT_EQ(text.rfind(c.message, 0), 0u) << text;
  }
  EXPECT_FALSE(fs::exists(touched)) << "the agent did not start";
  EXPECT_FALSE(fs::exists(dir.path() / "stream.log"));
}

TEST(ad_keeper, an_attempt_folder_it_cannot_write_exits_3_without_starting_the_agent) {
  temp_dir dir;
  auto touched = dir.path() / "started";
  auto missing = invocation(dir.path() / "missing", {"touch:" + touched.string()});
  auto r = run_keeper(missing);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.output.find("the attempt folder " + (dir.path() / "missing").string() + " does not exist"),
            std::string::npos)
    << r.output;

  // stream.log cannot be created: a folder is in its place.
  fs::create_directories(dir.path() / "blocked" / "stream.log");
  r = run_keeper(invocation(dir.path() / "blocked", {"touch:" + touched.string()}));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.output.find("cannot write in the attempt folder"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stream.log"), std::string::npos) << r.output;

  // A folder that already has an exit record belongs to an earlier keeper.
  temp_dir used;
  used.write("exit.json", "{}");
  r = run_keeper(invocation(used.path(), {"touch:" + touched.string()}));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.output.find("already holds exit.json"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(touched));
}

} // namespace
} // namespace ad::test::keeper
