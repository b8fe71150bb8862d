// The process table as /proc gives it: a stat line whose command name holds
// spaces and ')' still yields its pid, parent and group; a malformed line
// yields nothing; descendants are found below a process however deep; the
// table read from a /proc folder holds every live process, its lines read
// whole however long.
#include "runtime/core/proc_scan.hpp"

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

} // namespace
} // namespace ad::runtime
