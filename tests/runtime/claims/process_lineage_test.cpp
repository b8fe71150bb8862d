#include "runtime/claims/process_lineage.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "runtime/claims/process_marker.hpp"
#include "tests/runtime/claims/claims_fixtures.hpp"

namespace ad::runtime {
namespace {

TEST(pid_parents, keeps_the_newest_parent_and_forgets_the_oldest_past_capacity) {
  pid_parents p(3);
  p.record(10, 1);
  p.record(11, 10);
  p.record(10, 5); // pid 10 forked again
  EXPECT_EQ(p.parent_of(10), 5);
  p.record(12, 11);
  p.record(13, 12);
  EXPECT_EQ(p.parent_of(11), 0); // the oldest live record went first
  EXPECT_EQ(p.parent_of(10), 5);
  EXPECT_EQ(p.parent_of(13), 12);
  EXPECT_LE(p.size(), 3u);
  EXPECT_EQ(p.parent_of(99), 0);
}

TEST(pid_parents, lead_the_marker_walk_past_processes_already_gone) {
  test::scratch_dir proc;
  auto stat = [](int pid, int ppid) {
    std::string line = std::to_string(pid) + " (agent) S " + std::to_string(ppid);
    for (int field = 5; field <= 22; ++field)
      line += " 7";
    return line + "\n";
  };
  test::put_file(proc.path() / "100/stat", stat(100, 1));
  test::put_file(proc.path() / "100/environ",
                 std::string("AGENT_DISPATCH_EXECUTION_ID=m-agent") + '\0');
  // 300 (a tool) and 200 (its shell) exited; only the forks were recorded.
  pid_parents forks;
  forks.record(200, 100);
  forks.record(300, 200);
  marker_resolver r(proc.path(), 99);
  EXPECT_EQ(r.resolve(300), "");
  EXPECT_EQ(r.resolve(300, &forks), "m-agent");
}

TEST(pid_parents, a_remembered_agent_keeps_its_marker_after_it_exits_until_its_pid_is_forked_again) {
  test::scratch_dir proc;
  test::put_file(proc.path() / "100/stat", "100 (agent) S 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 42\n");
  test::put_file(proc.path() / "100/environ", std::string("HOME=/") + '\0');
  pid_parents forks;
  forks.record(100, 99); // the dispatcher started it
  marker_resolver r(proc.path(), 99);
  EXPECT_FALSE(r.remember(555, "m-none", &forks)); // not running
  ASSERT_TRUE(r.remember(100, "m-agent", &forks));
  EXPECT_EQ(r.resolve(100, &forks), "m-agent");
  std::filesystem::remove_all(proc.path() / "100");
  EXPECT_EQ(r.resolve(100, &forks), "m-agent"); // exited before its writes were read
  forks.record(100, 7);                         // the pid names a later process now
  EXPECT_EQ(r.resolve(100, &forks), "");
}

TEST(process_lineage, records_the_fork_of_a_child) {
  auto lineage = process_lineage::open();
  ASSERT_TRUE(lineage) << "the process connector is refused here: " << lineage.error().to_string();
  test::held_shell child("echo up; read _", {}, test::child_env(""));
  ASSERT_EQ(child.wait_line(), "up");
  EXPECT_TRUE(lineage->drain());
  EXPECT_EQ(lineage->parents().parent_of(child.pid()), static_cast<int>(::getpid()));
  child.release();
}

} // namespace
} // namespace ad::runtime
