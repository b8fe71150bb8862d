// The process table as /proc gives it: a stat line whose command name holds
// spaces and ')' still yields its pid, parent and group; a malformed line
// yields nothing; descendants are found below a process however deep; the
// table read from a /proc folder holds every live process, its lines read
// whole however long; the pids handed out since a moment are known from the
// pid allocator, round its end too, and only their processes are read,
// unless the allocator may have gone round the whole range.
#include "runtime/core/proc_scan.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

TEST(proc_scan, a_stat_line_gives_pid_parent_group_and_state) {
  auto e = parse_process_stat("4242 (sleep) S 17 4240 4240 0 -1 4194304 0");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->pid, 4242);
  EXPECT_EQ(e->ppid, 17);
  EXPECT_EQ(e->pgid, 4240);
  EXPECT_EQ(e->state, 'S');
  EXPECT_EQ(e->comm, "sleep");
}

// Field 22 is the start, in clock ticks after boot; a line that stops
// before it says nothing of the start. /proc/self/stat gives this process's.
TEST(proc_scan, a_full_stat_line_gives_the_start) {
  auto e = parse_process_stat("4242 (a b) c) S 17 4240 4240 0 -1 4194304 95 0 0 0 1 2 0 0 20 0 1 0 "
                              "123456 1000 200");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->start_ticks, 123456u);
  EXPECT_FALSE(parse_process_stat("4242 (sleep) S 17 4240 4240 0 -1 4194304 0")->start_ticks);
  auto bad = parse_process_stat("4242 (sleep) S 17 4240 4240 0 -1 4194304 95 0 0 0 1 2 0 0 20 0 1 "
                                "0 soon 1000 200");
  ASSERT_TRUE(bad.has_value());
  EXPECT_FALSE(bad->start_ticks);
}

TEST(proc_scan, a_command_name_with_spaces_and_parentheses_shifts_nothing) {
  auto e = parse_process_stat("77 (a) b) c 1 2) R 5 6 7 0 -1 0");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->pid, 77);
  EXPECT_EQ(e->comm, "a) b) c 1 2");
  EXPECT_EQ(e->state, 'R');
  EXPECT_EQ(e->ppid, 5);
  EXPECT_EQ(e->pgid, 6);
}

TEST(proc_scan, a_malformed_stat_line_gives_nothing) {
  EXPECT_FALSE(parse_process_stat("").has_value());
  EXPECT_FALSE(parse_process_stat("12 sleep S 1 2").has_value());
  EXPECT_FALSE(parse_process_stat("12 (sleep) S 1").has_value());
  EXPECT_FALSE(parse_process_stat("x (sleep) S 1 2").has_value());
  EXPECT_FALSE(parse_process_stat("12 (sleep) S one 2").has_value());
  EXPECT_FALSE(parse_process_stat("12 (sleep) SS 1 2").has_value());
}

TEST(proc_scan, descendants_are_found_at_every_depth_and_only_below) {
  std::vector<process_entry> table = {
    {10, 1, 10, 'S', "agent"}, {11, 10, 10, 'S', "sh"},    {12, 11, 12, 'S', "setsid"},
    {13, 1, 13, 'S', "other"}, {14, 12, 12, 'S', "sleep"}, {15, 13, 13, 'S', "child"},
  };
  EXPECT_EQ(descendants_of(10, table), (std::vector<int>{11, 12, 14}));
  EXPECT_EQ(descendants_of(13, table), (std::vector<int>{15}));
  EXPECT_TRUE(descendants_of(14, table).empty());
}

// A table read from a folder laid out as /proc: the numbered folders' stat
// lines, zombies and malformed lines left out, other names passed over, a
// line longer than one read's buffer read whole, sorted by pid.
TEST(proc_scan, the_table_of_a_proc_folder_holds_its_live_processes) {
  test::temp_dir dir;
  dir.write("30/stat", "30 (sleep) S 1 30 30 0 -1 4194304 0");
  dir.write("4/stat", "4 (sh) R 1 4 4 0 -1 4194304 0");
  dir.write("31/stat", "31 (gone) Z 1 31 31 0 -1 4194304 0");
  dir.write("32/stat", "32 sleep S 1 32");
  dir.write("self/stat", "99 (self) S 1 99 99 0 -1 4194304 0");
  std::string fields = " S 7 33 33";
  while (fields.size() < 3000)
    fields += " 0";
  dir.write("33/stat", "33 (long line)" + fields);
  auto table = list_processes(dir.path());
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[0].pid, 4);
  EXPECT_EQ(table[0].state, 'R');
  EXPECT_EQ(table[1].pid, 30);
  EXPECT_EQ(table[1].comm, "sleep");
  EXPECT_EQ(table[2].pid, 33);
  EXPECT_EQ(table[2].comm, "long line");
  EXPECT_EQ(table[2].ppid, 7);
  EXPECT_EQ(table[2].start_ticks, 0u);
}

// A /proc folder's allocator: the last pid handed out, the forks since boot
// from the "processes" line of stat (not its first), the largest pid.
void write_allocator(const test::temp_dir& dir, int last_pid, unsigned long long forks, int pid_max = 32768) {
  dir.write("sys/kernel/ns_last_pid", std::to_string(last_pid) + "\n");
  dir.write("stat", "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 5 0 0 1\nctxt 77\nbtime 1700000000\nprocesses " +
                        std::to_string(forks) + "\nprocs_running 2\n");
  dir.write("sys/kernel/pid_max", std::to_string(pid_max) + "\n");
}

TEST(pid_allocation, is_read_from_the_allocator_files) {
  test::temp_dir dir;
  write_allocator(dir, 4100, 91234, 4194304);
  auto a = read_pid_allocation(dir.path());
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->last_pid, 4100);
  EXPECT_EQ(a->forks, 91234u);
  EXPECT_EQ(a->pid_max, 4194304);
  dir.write("stat", "cpu  1 2 3 4\nprocs_running 2\n");
  EXPECT_FALSE(read_pid_allocation(dir.path()).has_value());
  write_allocator(dir, 4100, 91234);
  dir.write("sys/kernel/ns_last_pid", "soon\n");
  EXPECT_FALSE(read_pid_allocation(dir.path()).has_value());
  test::temp_dir empty;
  EXPECT_FALSE(read_pid_allocation(empty.path()).has_value());
}

TEST(pid_allocation, this_machine_has_one_and_it_moves_with_a_fork) {
  auto then = read_pid_allocation();
  ASSERT_TRUE(then.has_value());
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0)
    ::_exit(0);
  int st = 0;
  ASSERT_EQ(::waitpid(child, &st, 0), child);
  auto now = read_pid_allocation();
  ASSERT_TRUE(now.has_value());
  EXPECT_GT(now->forks, then->forks);
  auto window = pids_handed_out_since(then->last_pid, *then, *now);
  ASSERT_TRUE(window.has_value());
  EXPECT_TRUE(window->contains(child));
  EXPECT_FALSE(window->contains(then->last_pid));
}

TEST(pid_window, holds_the_pids_after_the_first_through_the_last_and_round_the_end) {
  pid_window plain{4000, 4100};
  EXPECT_FALSE(plain.contains(4000));
  EXPECT_TRUE(plain.contains(4001));
  EXPECT_TRUE(plain.contains(4100));
  EXPECT_FALSE(plain.contains(4101));
  EXPECT_FALSE(plain.contains(10));
  pid_window round{32000, 500};
  EXPECT_TRUE(round.contains(32001));
  EXPECT_TRUE(round.contains(32768));
  EXPECT_TRUE(round.contains(300));
  EXPECT_TRUE(round.contains(500));
  EXPECT_FALSE(round.contains(501));
  EXPECT_FALSE(round.contains(32000));
  pid_window none{4000, 4000};
  EXPECT_FALSE(none.contains(4000));
  EXPECT_FALSE(none.contains(4001));
  EXPECT_FALSE(none.contains(3999));
}

TEST(pid_window, is_unknown_once_the_forks_may_have_gone_round_the_range) {
  pid_allocation then{4000, 1000, 32768};
  auto ok = pids_handed_out_since(4000, then, {6000, 17000, 32768});
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->after, 4000);
  EXPECT_EQ(ok->through, 6000);
  // Half the range past 300, (32768 - 300) / 2 = 16234 forks, is the margin.
  EXPECT_TRUE(pids_handed_out_since(4000, then, {6000, 1000 + 16233, 32768}).has_value());
  EXPECT_FALSE(pids_handed_out_since(4000, then, {6000, 1000 + 16234, 32768}).has_value());
  // A smaller pid_max since shrinks the range.
  EXPECT_FALSE(pids_handed_out_since(4000, then, {6000, 1000 + 5000, 8192}).has_value());
  // Readings that make no sense: fewer forks, no pid, a tiny range.
  EXPECT_FALSE(pids_handed_out_since(4000, then, {6000, 999, 32768}).has_value());
  EXPECT_FALSE(pids_handed_out_since(0, then, {6000, 1001, 32768}).has_value());
  EXPECT_FALSE(pids_handed_out_since(4000, {4000, 1000, 500}, {4001, 1001, 500}).has_value());
}

// Only the processes whose pids were handed out since the first are read:
// the older ones (lower pids, the first itself, a higher pid from before
// the allocator went round) are not in the table, nor is a zombie.
TEST(proc_scan, the_table_since_a_pid_holds_only_the_processes_started_after_it) {
  test::temp_dir dir;
  for (int pid : {1, 10, 4000, 4050, 4070, 4100, 4200, 30000})
    dir.write(std::to_string(pid) + "/stat",
              std::to_string(pid) + " (p" + std::to_string(pid) + ") S 1 1 1 0 -1 0");
  dir.write("4070/stat", "4070 (gone) Z 4050 1 1 0 -1 0");
  pid_allocation then{4000, 500, 32768};
  write_allocator(dir, 4100, 520);
  auto table = list_processes_since(4000, then, dir.path());
  ASSERT_TRUE(table.has_value());
  std::vector<int> pids;
  for (const auto& e : *table)
    pids.push_back(e.pid);
  EXPECT_EQ(pids, (std::vector<int>{4050, 4100}));
  // The allocator went round: after 30000, then from the low pids to 4050.
  then = {30000, 500, 32768};
  write_allocator(dir, 4050, 9000);
  table = list_processes_since(30000, then, dir.path());
  ASSERT_TRUE(table.has_value());
  pids.clear();
  for (const auto& e : *table)
    pids.push_back(e.pid);
  EXPECT_EQ(pids, (std::vector<int>{1, 10, 4000, 4050}));
  // Too many forks since: the caller reads the whole table.
  write_allocator(dir, 4050, 500 + 20000);
  EXPECT_FALSE(list_processes_since(30000, then, dir.path()).has_value());
}

} // namespace
} // namespace ad::runtime
