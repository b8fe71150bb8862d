#include "runtime/claims/process_marker.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/claims/claims_fixtures.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

std::string stat_line(int pid, const std::string& comm, int ppid, const std::string& start) {
  std::string line = std::to_string(pid) + " (" + comm + ") S " + std::to_string(ppid);
  for (int field = 5; field < 22; ++field)
    line += " 0";
  return line + " " + start + " 0 0\n";
}

// A /proc look-alike: each process is a folder with stat and environ.
class fake_proc {
public:
  void add(int pid, int ppid, const std::string& start, const std::string& marker) {
    test::put_file(dir_.path() / std::to_string(pid) / "stat", stat_line(pid, "sh", ppid, start));
    std::string env = std::string("PATH=/bin") + '\0';
    if (!marker.empty())
      env += "AGENT_DISPATCH_EXECUTION_ID=" + marker + '\0';
    env += std::string("HOME=/root") + '\0';
    test::put_file(dir_.path() / std::to_string(pid) / "environ", env);
  }
  void remove(int pid) { fs::remove_all(dir_.path() / std::to_string(pid)); }
  const fs::path& root() const { return dir_.path(); }

private:
  test::scratch_dir dir_;
};

TEST(process_marker, stat_fields_survive_odd_command_names) {
  stat_fields f;
  ASSERT_TRUE(parse_stat_fields(stat_line(42, "a) b (c", 7, "123456"), f));
  EXPECT_EQ(f.ppid, 7);
  EXPECT_EQ(f.start_token, "123456");
  EXPECT_FALSE(parse_stat_fields("42 (x) S 7 0 0", f));
  EXPECT_FALSE(parse_stat_fields("no parenthesis", f));
}

TEST(process_marker, marker_is_read_from_a_nul_separated_environment) {
  using namespace std::string_literals;
  EXPECT_EQ(marker_in_environ("A=1\0AGENT_DISPATCH_EXECUTION_ID=w1__t__a01__n\0B=2\0"s),
            "w1__t__a01__n");
  EXPECT_EQ(marker_in_environ("AGENT_DISPATCH_EXECUTION_ID_X=1\0"s), "");
  EXPECT_EQ(marker_in_environ("AGENT_DISPATCH_EXECUTION_ID=\0"s), "");
  EXPECT_EQ(marker_in_environ(""), "");
}

TEST(process_marker, found_in_the_process_or_up_its_parent_chain) {
  fake_proc proc;
  proc.add(100, 1, "500", "m-agent");
  proc.add(200, 100, "600", "");
  proc.add(300, 200, "700", "");
  proc.add(400, 1, "800", "");
  marker_resolver r(proc.root(), 99);
  EXPECT_EQ(r.resolve(100), "m-agent");
  EXPECT_EQ(r.resolve(300), "m-agent");
  EXPECT_EQ(r.resolve(400), "");
  EXPECT_EQ(r.resolve(12345), ""); // no such process
}

TEST(process_marker, the_walk_stops_at_the_resolvers_own_process) {
  fake_proc proc;
  proc.add(100, 1, "500", "m-outer");
  proc.add(150, 100, "550", ""); // the dispatcher, itself run by an agent
  proc.add(200, 150, "600", "");
  marker_resolver r(proc.root(), 150);
  EXPECT_EQ(r.resolve(200), "");
}

TEST(process_marker, the_walk_is_bounded) {
  fake_proc proc;
  proc.add(1000, 1, "1", "m-top");
  for (int pid = 1001; pid <= 1000 + marker_resolver::max_levels; ++pid)
    proc.add(pid, pid - 1, "1", "");
  marker_resolver r(proc.root(), 99);
  EXPECT_EQ(r.resolve(1000 + marker_resolver::max_levels), ""); // 65 levels away
  EXPECT_EQ(r.resolve(999 + marker_resolver::max_levels), "m-top");
}

TEST(process_marker, a_cached_writer_is_known_after_it_exits_until_its_pid_is_reused) {
  fake_proc proc;
  proc.add(100, 1, "500", "m-agent");
  proc.add(200, 100, "600", "");
  marker_resolver r(proc.root(), 99);
  EXPECT_EQ(r.resolve(200), "m-agent");
  EXPECT_EQ(r.cached(), 2u);
  // The agent is gone; the tool (a zombie, say) still shows its parent.
  proc.remove(100);
  EXPECT_EQ(r.resolve(200), "m-agent");
  // Pid 200 now names a later process of another start time and no marker.
  proc.add(200, 1, "900", "");
  EXPECT_EQ(r.resolve(200), "");
  // A never-seen writer that already exited is unknown.
  EXPECT_EQ(r.resolve(300), "");
}

TEST(process_marker, the_cache_stays_bounded) {
  fake_proc proc;
  for (int pid = 100; pid < 110; ++pid)
    proc.add(pid, 1, "5", "m-" + std::to_string(pid));
  marker_resolver r(proc.root(), 99, 4);
  for (int pid = 100; pid < 110; ++pid)
    EXPECT_EQ(r.resolve(pid), "m-" + std::to_string(pid));
  EXPECT_LE(r.cached(), 4u);
}

} // namespace
} // namespace ad::runtime
