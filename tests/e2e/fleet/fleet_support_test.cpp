// The fleet tests' sampler: which of the processes sharing an agent's marker
// is the agent. The restart soak compares the pids it sees with the pids each
// run recorded, so taking a child for its agent reads as an agent that died
// without finishing.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "tests/e2e/fleet/fleet_support.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(fleet_sampler, the_agent_is_the_process_whose_parent_is_outside_its_marker_group) {
  // After pids wrapped: a sanitized agent (40100) cloned its LeakSanitizer
  // tracer at exit, and the tracer got pid 362; another agent's child (41000)
  // outlived it and was reparented to init.
  std::vector<marked_process> processes{
      {362, 40100, "w1__a__p1__worker__a01__x", "agent"},
      {40100, 900, "w1__a__p1__worker__a01__x", "agent"},
      {40200, 900, "w1__b__p1__worker__a01__y", "agent"},
      {40250, 40200, "w1__b__p1__worker__a01__y", "sh -c make"},
      {41000, 1, "w1__c__p1__worker__a01__z", "sleep 30"},
      {41001, 41000, "w1__c__p1__worker__a01__z", "sleep 30"},
  };
  auto agents = agents_of(processes);
  ASSERT_EQ(agents.size(), 3u);
  EXPECT_EQ(agents[0].pid, 40100);
  EXPECT_EQ(agents[1].pid, 40200);
  EXPECT_EQ(agents[2].pid, 41000);
}

TEST(fleet_sampler, reads_each_marked_process_parent_from_proc) {
  // A marked shell starts a child whose command name holds ") " (a comm is
  // free text inside the parentheses of /proc/PID/stat); the sampler sees
  // both, their parent link, and the shell as the agent.
  temp_dir dir;
  auto registry = dir.path() / "registry";
  auto child = dir.path() / "sl) 1 (x";
  fs::copy_file("/bin/sleep", child);
  fs::permissions(child, fs::perms::owner_all);
  std::string reg = "AGENT_SIM_REGISTRY=" + registry.string();
  std::string mark = "AGENT_DISPATCH_EXECUTION_ID=w1__t__p1__worker__a01__q";
  std::string script = "'" + child.string() + "' 30 & wait";
  const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
  const char* envp[] = {reg.c_str(), mark.c_str(), "PATH=/usr/bin:/bin", nullptr};
  pid_t shell = 0;
  ASSERT_EQ(::posix_spawn(&shell, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv),
                          const_cast<char**>(envp)),
            0);
  std::vector<marked_process> seen;
  for (int i = 0; i < 400 && seen.size() < 2; ++i) {
    std::this_thread::sleep_for(5ms);
    seen = scan_marked_processes(registry);
  }
  // The child first: the shell's `wait` reaps it and the shell exits.
  for (const auto& p : seen)
    if (p.pid != shell)
      ::kill(p.pid, SIGKILL);
  if (seen.size() < 2)
    ::kill(shell, SIGKILL);
  ::waitpid(shell, nullptr, 0);
  ASSERT_EQ(seen.size(), 2u);
  const auto& parent = seen[0].pid == shell ? seen[0] : seen[1];
  const auto& sleeper = seen[0].pid == shell ? seen[1] : seen[0];
  EXPECT_EQ(parent.pid, shell);
  EXPECT_EQ(parent.ppid, ::getpid());
  EXPECT_EQ(sleeper.ppid, shell);
  auto agents = agents_of(seen);
  ASSERT_EQ(agents.size(), 1u);
  EXPECT_EQ(agents[0].pid, shell);
}

} // namespace
} // namespace ad::test
