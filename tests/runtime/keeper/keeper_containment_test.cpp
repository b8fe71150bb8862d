// Containment with the real ad-keeper (docs/keeper.md, "Containment"): an
// agent that starts `sleep 300 &`, `setsid sleep 301 &` and `setsid sleep
// 302 >/dev/null 2>&1 </dev/null &` and exits leaves nothing behind, with a
// cgroup where the hierarchy is writable and with the fallback (the keeper as
// child subreaper plus the marker scan): its end, a stop (SIGTERM to the
// keeper), a lapsed lease. The processes are named in exit.json; a name on
// --keep-alive is kept. Before containment all three outlived the attempt.

#include <gtest/gtest.h>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "runtime/core/files.hpp"
#include "runtime/keeper/containment.hpp"
#include "tests/runtime/keeper/keeper_harness.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::test::keeper {
namespace {

namespace fs = std::filesystem;
using runtime::containment_kind;
using runtime::keeper_end;
using runtime::keeper_initiator;
using std::chrono::steady_clock;

// The three children of the issue, their pids written to files in dir,
// then `rest` (a shell command: "exit 0", "sleep 30").
runtime::keeper_invocation leaky_agent(const fs::path& attempt_dir, const fs::path& pids,
                                       const std::string& rest) {
  runtime::keeper_invocation inv;
  inv.attempt_dir = attempt_dir;
  inv.marker = unique_marker();
  const std::string p = pids.string();
  inv.agent_argv = {"/bin/sh", "-c",
                    "sleep 300 & echo $! > " + p + "/a; "
                    "setsid sleep 301 & echo $! > " + p + "/b; "
                    "setsid sleep 302 >/dev/null 2>&1 </dev/null & echo $! > " + p + "/c; " + rest};
  return inv;
}

std::vector<int> children_of(const fs::path& pids) {
  std::vector<int> out;
  for (const char* name : {"a", "b", "c"}) {
    EXPECT_TRUE(eventually([&] { return read_text(pids / name).find('\n') != std::string::npos; }))
      << name;
    out.push_back(std::atoi(read_text(pids / name).c_str()));
  }
  return out;
}

bool all_gone(const std::vector<int>& pids) {
  for (int pid : pids)
    if (!process_gone(pid))
      return false;
  return true;
}

// Whether this machine has a cgroup v2 hierarchy the keeper can use.
bool cgroup_available() { return runtime::writable_cgroup2_parent().is_ok(); }

struct mode {
  const char* name;
  std::vector<std::string> args;  // extra keeper arguments
  std::vector<std::string> env;   // extra environment
  containment_kind expected;
};

std::vector<mode> modes() {
  std::vector<mode> out = {
    {"fallback by option", {"--containment", "subreaper"}, {}, containment_kind::subreaper},
    {"fallback by environment", {}, {"AD_KEEPER_CONTAINMENT=subreaper"}, containment_kind::subreaper}};
  // Where no writable cgroup v2 hierarchy exists the keeper falls back by
  // itself; the cgroup case needs one.
  out.push_back({"automatic", {}, {},
                 cgroup_available() ? containment_kind::cgroup : containment_kind::subreaper});
  return out;
}

struct started {
  pid_t keeper = -1;
  temp_dir out;
  ~started() {
    if (keeper > 0 && !wait_for_exit(keeper, 0ms)) {
      ::kill(keeper, SIGKILL);
      wait_for_exit(keeper, 5s);
    }
  }
};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& extra) {
  auto sep = std::find(args.begin(), args.end(), "--");
  args.insert(sep, extra.begin(), extra.end());
  return args;
}

TEST(ad_keeper_containment, every_process_the_agent_started_ends_within_a_second_of_its_end) {
  for (const auto& m : modes()) {
    SCOPED_TRACE(m.name);
    temp_dir dir, pids;
    auto inv = leaky_agent(dir.path(), pids.path(), "exit 0");
    started k;
    k.keeper = spawn_keeper(with(runtime::keeper_arguments(inv), m.args), k.out.path() / "out",
                            session_choice::own_session, m.env);
    auto children = children_of(pids.path());
    // The agent exits right after the last pid is written.
    auto agent_end = steady_clock::now();
    ASSERT_TRUE(eventually([&] { return all_gone(children); }, 10s))
      << "left alive: " << read_text(dir.path() / "keeper.log");
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(steady_clock::now() - agent_end);
    EXPECT_LT(took.count(), 1000) << "the agent's children outlived it by " << took.count() << " ms";
    std::printf("[ containment ] %s: the agent's three children gone %lld ms after its end\n", m.name,
                static_cast<long long>(took.count()));
    auto st = wait_for_exit(k.keeper, 10s);
    ASSERT_TRUE(st.has_value());
    k.keeper = -1;
    EXPECT_EQ(WEXITSTATUS(*st), 0);
    auto rec = runtime::read_keeper_record(dir.path());
    ASSERT_TRUE(rec.is_ok()) << rec.error().message();
    EXPECT_EQ(rec->containment, m.expected);
    auto e = exit_record_of(dir.path());
    EXPECT_EQ(e.end, keeper_end::exited);
    EXPECT_EQ(e.containment.kind, m.expected);
    ASSERT_EQ(e.containment.ended.size(), 3u) << read_text(dir.path() / "keeper.log");
    for (const auto& p : e.containment.ended) {
      // Named as seen when the agent ended: a child may not have exec'd yet.
      EXPECT_FALSE(p.name.empty());
      EXPECT_NE(std::find(children.begin(), children.end(), p.pid), children.end()) << p.pid;
    }
    EXPECT_FALSE(e.containment.gave_up);
    if (m.expected == containment_kind::cgroup) {
      EXPECT_FALSE(rec->cgroup.empty());
      EXPECT_FALSE(fs::exists(rec->cgroup)) << "the attempt's cgroup was not removed";
      EXPECT_TRUE(e.containment.usage.cpu_usec.has_value());
    } else {
      EXPECT_TRUE(rec->cgroup.empty());
    }
    EXPECT_TRUE(processes_with_marker(inv.marker).empty());
  }
}

TEST(ad_keeper_containment, a_stop_and_a_lapsed_lease_end_every_process_of_the_attempt) {
  for (const auto& m : modes()) {
    for (bool by_lease : {false, true}) {
      SCOPED_TRACE(std::string(m.name) + (by_lease ? ", lease" : ", SIGTERM"));
      temp_dir dir, pids, lease_dir;
      auto inv = leaky_agent(dir.path(), pids.path(), "sleep 30");
      if (by_lease) {
        inv.lease_file = lease_dir.write("lease", "");
        inv.lease_ms = 400;
      }
      started k;
      k.keeper = spawn_keeper(with(runtime::keeper_arguments(inv), m.args), k.out.path() / "out",
                              session_choice::own_session, m.env);
      auto children = children_of(pids.path());
      if (!by_lease)
        ::kill(k.keeper, SIGTERM);
      auto st = wait_for_exit(k.keeper, 15s);
      ASSERT_TRUE(st.has_value());
      k.keeper = -1;
      EXPECT_TRUE(all_gone(children)) << read_text(dir.path() / "keeper.log");
      auto e = exit_record_of(dir.path());
      EXPECT_EQ(e.termination.initiator, by_lease ? keeper_initiator::lease : keeper_initiator::dispatcher);
      EXPECT_EQ(e.containment.kind, m.expected);
      EXPECT_TRUE(processes_with_marker(inv.marker).empty());
    }
  }
}

TEST(ad_keeper_containment, a_process_named_to_keep_alive_outlives_the_attempt) {
  for (const auto& m : modes()) {
    SCOPED_TRACE(m.name);
    temp_dir dir, pids;
    auto keepme = pids.path() / "keepme";
    fs::create_symlink("/bin/sleep", keepme);
    // The kept process runs as itself (exec'd) before the agent ends.
    auto inv = leaky_agent(dir.path(), pids.path(),
                           keepme.string() + " 303 >/dev/null 2>&1 </dev/null & k=$!; "
                           "while [ \"$(cat /proc/$k/comm)\" != keepme ]; do sleep 0.01; done; "
                           "echo $k > " + (pids.path() / "kept").string() + "; exit 0");
    inv.keep_alive = {"keepme"};
    started k;
    k.keeper = spawn_keeper(with(runtime::keeper_arguments(inv), m.args), k.out.path() / "out",
                            session_choice::own_session, m.env);
    auto children = children_of(pids.path());
    ASSERT_TRUE(eventually([&] { return read_text(pids.path() / "kept").find('\n') != std::string::npos; }));
    int kept = std::atoi(read_text(pids.path() / "kept").c_str());
    auto st = wait_for_exit(k.keeper, 15s);
    ASSERT_TRUE(st.has_value());
    k.keeper = -1;
    EXPECT_TRUE(all_gone(children));
    EXPECT_FALSE(process_gone(kept)) << "the process named to keep alive was ended";
    auto e = exit_record_of(dir.path());
    ASSERT_EQ(e.containment.kept.size(), 1u);
    EXPECT_EQ(e.containment.kept[0].pid, kept);
    EXPECT_EQ(e.containment.kept[0].name, "keepme");
    EXPECT_EQ(e.containment.ended.size(), 3u);
    ::kill(kept, SIGKILL);
    EXPECT_TRUE(eventually([&] { return process_gone(kept); }));
  }
}

TEST(containment, the_v2_hierarchy_and_this_processs_cgroup_are_read_from_proc) {
  const std::string hybrid =
    "25 30 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
    "42 25 0:39 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
  EXPECT_EQ(runtime::cgroup2_mount_of(hybrid), fs::path("/sys/fs/cgroup/unified"));
  EXPECT_EQ(runtime::cgroup2_mount_of("30 1 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n"),
            fs::path("/sys/fs/cgroup"));
  EXPECT_FALSE(runtime::cgroup2_mount_of("30 1 0:26 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 ro\n"))
    << "read-only";
  EXPECT_FALSE(runtime::cgroup2_mount_of("30 1 0:26 /docker/x /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"))
    << "a part of the hierarchy";
  EXPECT_EQ(runtime::cgroup2_mount_of("30 1 0:26 / /mnt/cg\\040v2 rw - cgroup2 none rw\n"),
            fs::path("/mnt/cg v2"));
  EXPECT_FALSE(runtime::cgroup2_mount_of(hybrid.substr(0, hybrid.find("41 "))));
  EXPECT_EQ(runtime::cgroup2_path_of("4:memory:/x\n0::/user.slice/s.scope\n"), "/user.slice/s.scope");
  EXPECT_EQ(runtime::cgroup2_path_of("0::/\n"), "/");
  EXPECT_FALSE(runtime::cgroup2_path_of("4:memory:/x\n"));
  EXPECT_EQ(runtime::attempt_cgroup_name("w1__g_01__p1__worker__a01__x/y z"),
            "agent-dispatch-w1__g_01__p1__worker__a01__x_y_z");
  EXPECT_TRUE(runtime::kept_alive_by_name("sccache", "/usr/bin/sccache", {"sccache"}));
  EXPECT_TRUE(runtime::kept_alive_by_name("node", "/opt/x/gradle-daemon", {"gradle-daemon"}));
  EXPECT_FALSE(runtime::kept_alive_by_name("sleep", "sleep", {"sccache"}));
  EXPECT_FALSE(runtime::kept_alive_by_name("sleep", "sleep", {}));
  EXPECT_EQ(runtime::cpu_usec_of("usage_usec 1234\nuser_usec 1000\n"), 1234u);
}

} // namespace
} // namespace ad::test::keeper
