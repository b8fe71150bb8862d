// Stopping and surviving: SIGTERM to the keeper stops the agent's group
// (SIGKILL after the grace), a SIGKILLed keeper takes its agent along, the
// keeper outlives its parent without losing a line, a lease that runs out
// fences the agent, output held open by an orphan is drained for a while,
// and a chatty agent keeps the disk bounded while a follower keeps up.

#include <gtest/gtest.h>
#include <csignal>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/stream_follower.hpp"
#include "runtime/keeper/stream_seal.hpp"
#include "tests/runtime/keeper/keeper_harness.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::test::keeper {
namespace {

namespace fs = std::filesystem;
using runtime::keeper_end;
using runtime::keeper_initiator;
using std::chrono::steady_clock;

// A started keeper, killed with its agent if a test ends early.
struct running_keeper {
  runtime::keeper_invocation inv;
  temp_dir out;
  pid_t pid = -1;

  explicit running_keeper(runtime::keeper_invocation i) : inv(std::move(i)) {
    pid = spawn_keeper(runtime::keeper_arguments(inv), out.path() / "out");
  }
  ~running_keeper() {
    if (pid > 0 && !wait_for_exit(pid, 0ms)) {
      ::kill(pid, SIGKILL);
      wait_for_exit(pid, 5s);
    }
    kill_marked(inv.marker);
  }
  // Waits for the keeper's end; its exit code.
  int finish(std::chrono::milliseconds timeout = 15s) {
    auto st = wait_for_exit(pid, timeout);
    EXPECT_TRUE(st.has_value()) << "ad-keeper did not end in time";
    if (!st)
      return -1;
    pid = -1;
    return WIFEXITED(*st) ? WEXITSTATUS(*st) : -1;
  }
  bool wrote(const std::string& line) {
    return read_text(inv.attempt_dir / "stream.log").find(line + "\n") != std::string::npos;
  }
};

int pid_in(const fs::path& file) {
  EXPECT_TRUE(eventually([&] { return fs::exists(file); })) << file;
  return std::atoi(read_text(file).c_str());
}

TEST(ad_keeper_stop, sigterm_stops_the_agent_group_at_once_and_other_terminal_signals_do_not) {
  temp_dir dir;
  running_keeper k(invocation(dir.path(), {"out:ready", "sleep:20000"}));
  ASSERT_TRUE(eventually([&] { return k.wrote("[stdout] ready"); }));
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGPIPE})
    ::kill(k.pid, sig);
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(wait_for_exit(k.pid, 0ms).has_value()) << "the keeper ignores them";
  EXPECT_FALSE(fs::exists(dir.path() / "exit.json")) << "and so does the agent, in its own session";
  auto t0 = steady_clock::now();
  ::kill(k.pid, SIGTERM);
  ASSERT_EQ(k.finish(), 0);
  EXPECT_LT(steady_clock::now() - t0, 3s) << "well within the 5 s grace";
  auto e = exit_record_of(dir.path());
  EXPECT_EQ(e.end, keeper_end::signaled);
  EXPECT_EQ(e.signal, SIGTERM);
  EXPECT_EQ(e.exit_code, 128 + SIGTERM);
  EXPECT_EQ(e.termination, (runtime::keeper_termination{keeper_initiator::dispatcher, SIGTERM}));
}

TEST(ad_keeper_stop, a_keeper_started_with_sigterm_and_sigchld_ignored_still_stops_and_reaps) {
  temp_dir dir;
  auto inv = invocation(dir.path(), {"out:ready", "sleep:20000"});
  std::vector<std::string> args = {keeper_binary().string()};
  for (auto& a : runtime::keeper_arguments(inv))
    args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    // Ignored dispositions survive exec: the keeper must undo them.
    ::signal(SIGTERM, SIG_IGN);
    ::signal(SIGCHLD, SIG_IGN);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ASSERT_GT(pid, 0);
  bool ready = eventually([&] {
    return read_text(dir.path() / "stream.log").find("[stdout] ready\n") != std::string::npos;
  });
  ::kill(pid, SIGTERM);
  auto st = wait_for_exit(pid, 10s);
  if (!st) {
    ::kill(pid, SIGKILL);
    wait_for_exit(pid, 5s);
  }
  kill_marked(inv.marker);
  ASSERT_TRUE(ready);
  ASSERT_TRUE(st.has_value()) << "SIGTERM did not reach the keeper";
  EXPECT_EQ(WEXITSTATUS(*st), 0);
  auto e = exit_record_of(dir.path());
  EXPECT_EQ(e.end, keeper_end::signaled) << "the agent's status was read";
  EXPECT_EQ(e.signal, SIGTERM);
  EXPECT_EQ(e.termination.initiator, keeper_initiator::dispatcher);
}

TEST(ad_keeper_stop, an_agent_ignoring_sigterm_and_its_grandchild_are_killed_after_the_grace) {
  temp_dir dir;
  auto grandchild_file = dir.path() / "grandchild.pid";
  auto inv = invocation(dir.path(), {"ignore-term", "grandchild:" + grandchild_file.string(), "out:ready",
                                     "sleep:20000"});
  inv.grace_ms = 300;
  running_keeper k(inv);
  ASSERT_TRUE(eventually([&] { return k.wrote("[stdout] ready"); }));
  int grandchild = pid_in(grandchild_file);
  auto t0 = steady_clock::now();
  ::kill(k.pid, SIGTERM);
  ASSERT_EQ(k.finish(), 0);
  auto took = steady_clock::now() - t0;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 5s);
  auto e = exit_record_of(dir.path());
  EXPECT_EQ(e.end, keeper_end::signaled);
  EXPECT_EQ(e.signal, SIGKILL);
  EXPECT_EQ(e.termination, (runtime::keeper_termination{keeper_initiator::dispatcher, SIGKILL}));
  EXPECT_TRUE(eventually([&] { return process_gone(grandchild); }, 5s)) << "grandchild " << grandchild;
}

TEST(ad_keeper_stop, a_sigkilled_keeper_takes_its_agent_along) {
  temp_dir dir;
  auto agent_file = dir.path() / "agent.pid";
  running_keeper k(invocation(dir.path(), {"pidfile:" + agent_file.string(), "sleep:20000"}));
  int agent = pid_in(agent_file);
  ASSERT_FALSE(process_gone(agent));
  ::kill(k.pid, SIGKILL);
  EXPECT_EQ(k.finish(), -1);
  EXPECT_TRUE(eventually([&] { return process_gone(agent); }, 5s)) << "agent " << agent;
  EXPECT_FALSE(fs::exists(dir.path() / "exit.json"));
}

TEST(ad_keeper_stop, the_keeper_outlives_its_parent_and_loses_no_line) {
  // Orphans come to this process, so the keeper's exit status can be read.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  temp_dir dir, out;
  auto inv = invocation(dir.path(), {"every:15:120", "exit:0"});
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  auto args = runtime::keeper_arguments(inv);
  pid_t parent = ::fork();
  if (parent == 0) {
    // The intermediate parent: starts the keeper in its own session (the
    // keeper calls setsid itself), says its pid, waits to be killed.
    pid_t keeper = spawn_keeper(args, out.path() / "out", session_choice::callers_session);
    ssize_t n = ::write(report[1], &keeper, sizeof keeper);
    (void) n;
    for (;;)
      ::pause();
  }
  ::close(report[1]);
  pid_t keeper = -1;
  ASSERT_EQ(::read(report[0], &keeper, sizeof keeper), static_cast<ssize_t>(sizeof keeper));
  ::close(report[0]);
  ASSERT_TRUE(eventually([&] { return read_text(dir.path() / "stream.log").find("tick-5\n") != std::string::npos; }));
  ::kill(parent, SIGKILL);
  ASSERT_TRUE(wait_for_exit(parent, 5s).has_value());

  auto st = wait_for_exit(keeper, 15s);
  ASSERT_TRUE(st.has_value()) << "the keeper did not end";
  EXPECT_TRUE(WIFEXITED(*st));
  EXPECT_EQ(WEXITSTATUS(*st), 0);
  auto e = exit_record_of(dir.path());
  EXPECT_EQ(e.end, keeper_end::exited);
  EXPECT_EQ(e.exit_code, 0);
  std::vector<std::string> expected;
  for (int i = 0; i < 120; ++i)
    expected.push_back("[stdout] tick-" + std::to_string(i));
  EXPECT_EQ(lines_of(read_text(dir.path() / "stream.log")), expected);
  kill_marked(inv.marker);
}

TEST(ad_keeper_stop, a_lease_that_is_not_renewed_fences_the_agent) {
  temp_dir dir, lease_dir;
  auto lease = lease_dir.write("lease", "");
  auto inv = invocation(dir.path(), {"out:ready", "sleep:20000"});
  inv.lease_file = lease;
  inv.lease_ms = 300;
  auto t0 = steady_clock::now();
  running_keeper k(inv);
  ASSERT_EQ(k.finish(), 0);
  auto took = steady_clock::now() - t0;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 5s);
  auto e = exit_record_of(dir.path());
  EXPECT_EQ(e.end, keeper_end::signaled);
  EXPECT_EQ(e.termination, (runtime::keeper_termination{keeper_initiator::lease, SIGTERM}));
  EXPECT_NE(read_text(dir.path() / "keeper.log").find("ms old: stopping the agent"), std::string::npos);
}

TEST(ad_keeper_stop, a_renewed_lease_holds_and_a_removed_one_fences_at_once) {
  temp_dir dir, lease_dir;
  auto lease = lease_dir.write("lease", "");
  auto inv = invocation(dir.path(), {"every:20:40", "exit:0"}); // about 0.8 s
  inv.lease_file = lease;
  inv.lease_ms = 300;
  running_keeper k(inv);
  auto give_up = steady_clock::now() + 10s;
  while (!wait_for_exit(k.pid, 50ms)) {
    ASSERT_EQ(::utimensat(AT_FDCWD, lease.c_str(), nullptr, 0), 0);
    ASSERT_LT(steady_clock::now(), give_up) << "the agent should have ended after 0.8 s";
  }
  k.pid = -1;
  auto e = exit_record_of(dir.path());
  EXPECT_EQ(e.end, keeper_end::exited);
  EXPECT_EQ(e.termination.initiator, keeper_initiator::none);
  EXPECT_EQ(e.stream.lines, 40u);

  temp_dir dir2;
  auto inv2 = invocation(dir2.path(), {"out:ready", "sleep:20000"});
  inv2.lease_file = lease;
  inv2.lease_ms = 60000; // checked every second
  running_keeper k2(inv2);
  ASSERT_TRUE(eventually([&] { return k2.wrote("[stdout] ready"); }));
  fs::remove(lease);
  auto t0 = steady_clock::now();
  ASSERT_EQ(k2.finish(), 0);
  EXPECT_LT(steady_clock::now() - t0, 3s);
  EXPECT_EQ(exit_record_of(dir2.path()).termination.initiator, keeper_initiator::lease);
  EXPECT_NE(read_text(dir2.path() / "keeper.log").find("is gone: stopping the agent"), std::string::npos);
}

// A process outside the agent's group that holds its output ends with the
// attempt (containment), so the output closes at once.
TEST(ad_keeper_stop, output_held_open_by_a_process_the_agent_left_closes_when_it_is_ended) {
  temp_dir dir;
  auto inv = invocation(dir.path(), {"orphan:8000", "out:bye", "exit:0"});
  auto t0 = steady_clock::now();
  running_keeper k(inv);
  ASSERT_EQ(k.finish(), 0);
  EXPECT_LT(steady_clock::now() - t0, 1500ms) << "no drain: the holder was ended";
  EXPECT_EQ(read_text(dir.path() / "stream.log"), "[stdout] bye\n") << "the orphan never wrote";
  EXPECT_EQ(exit_record_of(dir.path()).containment.ended.size(), 1u);
}

// Kept alive by name, it may hold the output: that is read 2 s more, then
// closed.
TEST(ad_keeper_stop, output_held_open_by_a_process_kept_alive_is_drained_then_closed) {
  temp_dir dir;
  auto inv = invocation(dir.path(), {"orphan:8000", "out:bye", "exit:0"});
  inv.keep_alive = {"keeper-test-agent"};
  auto t0 = steady_clock::now();
  running_keeper k(inv);
  ASSERT_EQ(k.finish(), 0);
  auto took = steady_clock::now() - t0;
  EXPECT_GE(took, 1900ms) << "the drain waits 2 s";
  EXPECT_LT(took, 6s) << "and no longer";
  auto e = exit_record_of(dir.path());
  EXPECT_EQ(e.end, keeper_end::exited);
  EXPECT_EQ(read_text(dir.path() / "stream.log"), "[stdout] bye\n");
  EXPECT_NE(read_text(dir.path() / "keeper.log").find("still open after its end"), std::string::npos);
}

TEST(ad_keeper_stop, a_chatty_agent_keeps_the_disk_bounded_and_a_follower_keeps_up) {
  temp_dir dir;
  auto inv = invocation(dir.path(), {"mb:30", "exit:0"}); // 300,000 lines of 100 bytes
  inv.retention = {1 << 20, 2 << 20};
  running_keeper k(inv);
  runtime::stream_follower follower(dir.path(), inv.line_cap);
  long next = 0;
  uint64_t most_on_disk = 0;
  bool ordered = true;
  auto deadline = steady_clock::now() + 30s;
  for (bool ended = false; steady_clock::now() < deadline;) {
    auto b = follower.poll(256 << 10);
    ASSERT_TRUE(b.is_ok()) << b.error().to_string();
    next += static_cast<long>(b->lost_lines);
    for (const auto& l : b->lines) {
      ordered = ordered && std::atol(l.text.c_str()) == next;
      ++next;
    }
    uint64_t on_disk = 0;
    std::error_code ec;
    for (const auto& f : fs::directory_iterator(dir.path(), ec)) {
      struct stat st {};
      if (::stat(f.path().c_str(), &st) == 0 && S_ISREG(st.st_mode))
        on_disk += static_cast<uint64_t>(st.st_size); // a temporary may vanish meanwhile
    }
    most_on_disk = std::max(most_on_disk, on_disk);
    if (ended && b->lines.empty() && b->progress == runtime::follow_progress::caught_up)
      break;
    ended = ended || fs::exists(dir.path() / "exit.json");
  }
  ASSERT_EQ(k.finish(), 0);
  EXPECT_TRUE(ordered) << "every line in order, none twice";
  auto e = exit_record_of(dir.path());
  EXPECT_EQ(e.stream.lines, 300000u);
  EXPECT_EQ(e.stream.bytes, 300000u * 109);
  EXPECT_EQ(follower.totals().lines + follower.totals().lost_lines, e.stream.lines);
  EXPECT_EQ(next, 300000);
  EXPECT_GE(follower.totals().lines, 9000u) << "at least the head was followed";
  EXPECT_GT(most_on_disk, 1u << 20) << "the folder was measured while it held output";
  std::printf("[ chatty   ] followed %llu lines, lost %llu; at most %llu bytes on disk\n",
              static_cast<unsigned long long>(follower.totals().lines),
              static_cast<unsigned long long>(follower.totals().lost_lines),
              static_cast<unsigned long long>(most_on_disk));
  // Head, tail and the small files: about 3 MiB however much was written.
  EXPECT_LE(most_on_disk, (3u << 20) + (64u << 10));
  EXPECT_GT(e.stream.cut_lines, 0u);
  ASSERT_TRUE(runtime::seal_stream(dir.path() / "stream.log", e.stream.cut_lines, e.stream.cut_bytes).is_ok());
  EXPECT_FALSE(fs::exists(dir.path() / "stream.log.tail"));
  EXPECT_LE(fs::file_size(dir.path() / "stream.log"), (3u << 20) + 1024);
}

} // namespace
} // namespace ad::test::keeper
