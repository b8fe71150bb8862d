#include "runtime/process/liveness.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "runtime/core/files.hpp"
#include "runtime/core/proc_scan.hpp"
#include "runtime/process/reactor.hpp"
#include "tests/runtime/process/collecting_sink.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST(start_token, parses_field_22_after_the_last_parenthesis) {
  // A command name holding spaces and ')' must not shift the fields.
  std::string stat = "1234 (we ird) name) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 "
                     "987654 1000 100 18446744073709551615";
  auto token = parse_start_token(stat);
  ASSERT_TRUE(token.is_ok()) << token.error().to_string();
  EXPECT_EQ(*token, "987654");
}

TEST(start_token, rejects_malformed_text) {
  EXPECT_TRUE(parse_start_token("no parenthesis here").error().is_invalid_argument());
  EXPECT_TRUE(parse_start_token("1 (x) S 1 2 3").error().is_invalid_argument());
  std::string bad = "1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 abc 1";
  EXPECT_TRUE(parse_start_token(bad).error().is_invalid_argument());
}

TEST(start_token, of_self_matches_proc_self_stat) {
  auto token = process_start_token(::getpid());
  ASSERT_TRUE(token.is_ok()) << token.error().to_string();
  auto text = read_file("/proc/self/stat");
  ASSERT_TRUE(text.is_ok());
  EXPECT_EQ(*token, *parse_start_token(*text));
  EXPECT_EQ(probe_pid(::getpid(), *token), pid_liveness::alive);
  EXPECT_EQ(probe_pid(::getpid(), ""), pid_liveness::alive);
}

TEST(start_token, a_pid_with_another_token_is_dead) {
  auto token = process_start_token(::getpid());
  ASSERT_TRUE(token.is_ok());
  EXPECT_EQ(probe_pid(::getpid(), *token + "1"), pid_liveness::dead);
  EXPECT_EQ(probe_pid(0, ""), pid_liveness::dead);
  EXPECT_EQ(probe_pid(-5, ""), pid_liveness::dead);
}

TEST(start_token, a_reused_pid_is_dead_for_the_old_token) {
  // A fake /proc: pid 4242 now belongs to a process started at another time.
  test::temp_dir dir;
  dir.write("4242/stat", "4242 (agent) S 1 4242 4242 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5555 1 1");
  EXPECT_EQ(probe_pid(4242, "5555", dir.path()), pid_liveness::alive);
  EXPECT_EQ(probe_pid(4242, "1111", dir.path()), pid_liveness::dead);
  EXPECT_EQ(probe_pid(4243, "5555", dir.path()), pid_liveness::dead);
}

TEST(start_token, an_exited_and_reaped_child_is_dead) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0)
    ::_exit(0);
  auto token = process_start_token(pid);
  ASSERT_TRUE(token.is_ok());
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  EXPECT_EQ(probe_pid(pid, *token), pid_liveness::dead);
  EXPECT_TRUE(process_start_token(pid).error().is_not_found());
}

TEST(marker_scan, finds_a_child_by_its_marker) {
  auto reactor = process_reactor::start();
  ASSERT_TRUE(reactor.is_ok());
  test::temp_dir dir;
  std::string marker = "scan-" + std::to_string(::getpid());
  auto sink = std::make_shared<testing::collecting_sink>();
  spawn_request req;
  req.argv = {"/bin/sh", "-c", "echo up; exec sleep 300"};
  req.cwd = dir.path();
  req.marker = marker;
  req.sink = sink;
  auto out = (*reactor)->spawn(req);
  ASSERT_TRUE(out.is_ok());
  ASSERT_TRUE(sink->wait_line("up"));
  EXPECT_EQ(processes_with_marker(marker), std::vector<int>{out->pid});
  EXPECT_TRUE(processes_with_marker(marker + "x").empty());
  EXPECT_TRUE(processes_with_marker("").empty());
  (*reactor)->terminate(out->id, 1000);
  ASSERT_TRUE(sink->wait_exit().has_value());
  EXPECT_TRUE(processes_with_marker(marker).empty());
}

TEST(marker_scan, finds_a_process_inside_execve) {
  // The kernel lets readers see a process's new memory before it sets the
  // environment range there, so an exec in progress reads as no environment.
  // A script that execs itself forever is inside execve much of the time.
  auto reactor = process_reactor::start();
  ASSERT_TRUE(reactor.is_ok());
  test::temp_dir dir;
  dir.write("again.sh", "#!/bin/sh\nexec \"$0\"\n");
  fs::permissions(dir.path() / "again.sh", fs::perms::owner_all);
  std::string marker = "exec-loop-" + std::to_string(::getpid());
  auto sink = std::make_shared<testing::collecting_sink>();
  spawn_request req;
  req.argv = {(dir.path() / "again.sh").string()};
  req.cwd = dir.path();
  req.marker = marker;
  req.sink = sink;
  auto out = (*reactor)->spawn(req);
  ASSERT_TRUE(out.is_ok());
  int missed = 0;
  for (int i = 0; i < 300; ++i) {
    if (processes_with_marker(marker) != std::vector<int>{out->pid})
      ++missed;
  }
  (*reactor)->terminate(out->id, 0);
  ASSERT_TRUE(sink->wait_exit().has_value());
  EXPECT_EQ(missed, 0) << "scans that missed the process, of 300";
}

TEST(marker_scan, skips_unreadable_entries) {
  test::temp_dir dir;
  std::string env("A=1\0AGENT_DISPATCH_EXECUTION_ID=m1\0B=2", 38);
  dir.write("10/environ", env);
  dir.write("11/environ", std::string("AGENT_DISPATCH_EXECUTION_ID=m10\0", 32));
  fs::create_directories(dir.path() / "12" / "environ"); // reading fails: skipped
  dir.write("self/environ", env);                         // not a pid
  dir.write("13/stat", "no environ file at all");
  EXPECT_EQ(processes_with_marker("m1", dir.path()), std::vector<int>{10});
  EXPECT_EQ(processes_with_marker("m10", dir.path()), std::vector<int>{11});
}

// Over a table, only the processes started since the given tick (and those
// whose start is unknown) are read: an older process carrying the marker is
// not one of the attempt's, a process the table leaves out is not read.
TEST(marker_scan, over_a_table_reads_the_processes_started_since) {
  test::temp_dir dir;
  std::string env("AGENT_DISPATCH_EXECUTION_ID=m5\0", 32);
  for (const char* pid : {"50", "51", "52", "53", "54"})
    dir.write(std::string(pid) + "/environ", env);
  dir.write("55/environ", std::string("AGENT_DISPATCH_EXECUTION_ID=other\0", 35));
  std::vector<process_entry> table = {
    {50, 1, 50, 'S', "old", 100},  {51, 1, 51, 'S', "same", 200},
    {52, 1, 52, 'S', "new", 300},  {53, 1, 53, 'S', "unknown", std::nullopt},
    {55, 1, 55, 'S', "other", 400},
  };
  EXPECT_EQ(processes_with_marker("m5", table, 200, dir.path()), (std::vector<int>{51, 52, 53}));
  EXPECT_EQ(processes_with_marker("m5", table, 0, dir.path()),
            (std::vector<int>{50, 51, 52, 53}));
  EXPECT_TRUE(processes_with_marker("", table, 0, dir.path()).empty());
  // This process is in the table /proc gives, with its start, and carries
  // no marker.
  auto live = list_processes();
  auto me = std::find_if(live.begin(), live.end(),
                         [](const process_entry& e) { return e.pid == ::getpid(); });
  ASSERT_NE(me, live.end());
  ASSERT_TRUE(me->start_ticks.has_value());
  EXPECT_TRUE(processes_with_marker("m5", live, *me->start_ticks).empty());
}

locator_home sample_workspace() {
  return {"/ws/project", "0123456789abcdef", "/ws/project/.git/agent-dispatch/runs"};
}

TEST(locator_ownership, a_locator_in_the_runs_folder_naming_this_workspace_is_owned) {
  locator_claim claim{"/ws/project/.git/agent-dispatch/runs/20261129T000000Z__t__p1__worker__a01/locator.json",
                      "0123456789abcdef", "/ws/project"};
  auto o = judge_locator_ownership(claim, sample_workspace());
  EXPECT_EQ(o.kind, locator_ownership_kind::owned) << o.reason;
}

TEST(locator_ownership, foreign_locators_are_ignored_with_a_reason) {
  auto ws = sample_workspace();
  std::string inside = "/ws/project/.git/agent-dispatch/runs/a/locator.json";
  struct foreign_case {
    locator_claim claim;
    std::string reason_part;
  };
  std::vector<foreign_case> cases = {
    {{"/other/.git/agent-dispatch/runs/a/locator.json", ws.id, "/ws/project"}, "outside"},
    {{"/ws/project/.git/agent-dispatch/runs/../../x/locator.json", ws.id, "/ws/project"}, "outside"},
    {{"/ws/project/.git/agent-dispatch/runs", ws.id, "/ws/project"}, "outside"},
    {{"/ws/project/.git/agent-dispatch/runs-old/a/locator.json", ws.id, "/ws/project"}, "outside"},
    {{inside, "ffffffffffffffff", "/ws/project"}, "workspace id"},
    {{inside, "", "/ws/project"}, "no workspace id"},
    {{inside, ws.id, "/ws/other"}, "workspace root"},
    {{inside, ws.id, ""}, "no workspace root"},
  };
  for (const auto& c : cases) {
    auto o = judge_locator_ownership(c.claim, ws);
    EXPECT_EQ(o.kind, locator_ownership_kind::foreign) << c.claim.locator_path;
    EXPECT_NE(o.reason.find(c.reason_part), std::string::npos) << o.reason;
  }
}

TEST(locator_ownership, a_symlink_out_of_the_runs_folder_is_foreign) {
  test::temp_dir dir;
  fs::create_directories(dir.path() / "runs");
  fs::create_directories(dir.path() / "elsewhere" / "a");
  fs::create_symlink(dir.path() / "elsewhere", dir.path() / "runs" / "link");
  locator_home ws{dir.path(), "id1", dir.path() / "runs"};
  locator_claim via_link{dir.path() / "runs" / "link" / "a" / "locator.json", "id1",
                         dir.path().string()};
  EXPECT_EQ(judge_locator_ownership(via_link, ws).kind, locator_ownership_kind::owned);
  EXPECT_EQ(probe_locator_ownership(via_link, ws).kind, locator_ownership_kind::foreign);
  locator_claim real{dir.path() / "runs" / "b" / "locator.json", "id1", dir.path().string()};
  EXPECT_EQ(probe_locator_ownership(real, ws).kind, locator_ownership_kind::owned);
}

liveness_evidence running_evidence() {
  liveness_evidence ev;
  ev.locator_status = "running";
  ev.now = 100000;
  return ev;
}

TEST(liveness_rule, an_ended_locator_is_stale_even_with_a_live_pid) {
  auto ev = running_evidence();
  ev.locator_status = "failed";
  ev.agent = {evidence_presence::present, pid_liveness::alive};
  auto v = judge_liveness(ev);
  EXPECT_EQ(v.kind, liveness_kind::stale);
  EXPECT_EQ(v.basis, liveness_basis::not_running);
}

TEST(liveness_rule, a_live_agent_or_dispatcher_pid_is_live) {
  auto ev = running_evidence();
  ev.agent = {evidence_presence::present, pid_liveness::alive};
  EXPECT_EQ(judge_liveness(ev).basis, liveness_basis::agent_pid);
  ev.agent = {evidence_presence::present, pid_liveness::dead};
  ev.dispatcher = {evidence_presence::present, pid_liveness::alive};
  EXPECT_EQ(judge_liveness(ev).kind, liveness_kind::live);
  EXPECT_EQ(judge_liveness(ev).basis, liveness_basis::dispatcher_pid);
}

TEST(liveness_rule, the_marker_decides_when_pids_are_dead) {
  auto ev = running_evidence();
  ev.agent = {evidence_presence::present, pid_liveness::dead};
  ev.marker = "m";
  ev.marker_pids = {77, 78};
  auto v = judge_liveness(ev);
  EXPECT_EQ(v.kind, liveness_kind::live);
  EXPECT_EQ(v.basis, liveness_basis::marker);
  EXPECT_NE(v.reason.find("77,78"), std::string::npos);
  ev.marker_pids.clear();
  ev.stream_log = evidence_presence::present; // files do not override an absent marker
  v = judge_liveness(ev);
  EXPECT_EQ(v.kind, liveness_kind::stale);
  EXPECT_EQ(v.basis, liveness_basis::marker_absent);
}

TEST(liveness_rule, a_dead_recorded_agent_is_stale_despite_files) {
  auto ev = running_evidence();
  ev.agent = {evidence_presence::present, pid_liveness::dead};
  ev.native_session = evidence_presence::present;
  auto v = judge_liveness(ev);
  EXPECT_EQ(v.kind, liveness_kind::stale);
  EXPECT_EQ(v.basis, liveness_basis::agent_gone);
}

TEST(liveness_rule, files_without_pid_evidence_keep_it_live_with_the_idle_time) {
  auto ev = running_evidence();
  ev.native_session = evidence_presence::present;
  ev.last_progress = 100000 - 4200000; // quiet for 70 minutes: still live
  auto v = judge_liveness(ev);
  EXPECT_EQ(v.kind, liveness_kind::live);
  EXPECT_EQ(v.basis, liveness_basis::files_without_pid);
  EXPECT_EQ(v.idle_ms, 4200000);
  EXPECT_NE(v.reason.find("4200s"), std::string::npos) << v.reason;
  ev.native_session = evidence_presence::absent;
  ev.stream_log = evidence_presence::present;
  EXPECT_EQ(judge_liveness(ev).kind, liveness_kind::live);
}

TEST(liveness_rule, nothing_at_all_is_stale) {
  auto v = judge_liveness(running_evidence());
  EXPECT_EQ(v.kind, liveness_kind::stale);
  EXPECT_EQ(v.basis, liveness_basis::no_evidence);
}

TEST(liveness_probe, fills_evidence_from_proc_and_files) {
  test::temp_dir dir;
  auto stream = dir.write("run/stream.log", "[stdout] x\n");
  dir.write("run/pi-sessions/s.jsonl", "{}\n");
  manual_clock clk(4102444800000); // far after the files' mtime
  liveness_probe_input in;
  in.locator_status = "running";
  in.dispatcher_pid = ::getpid();
  in.dispatcher_start_token = *process_start_token(::getpid());
  in.native_session_path = dir.path() / "run" / "pi-sessions";
  in.stream_log_path = stream;
  auto ev = probe_liveness(in, clk);
  EXPECT_EQ(ev.agent.recorded, evidence_presence::absent);
  EXPECT_EQ(ev.dispatcher.state, pid_liveness::alive);
  EXPECT_EQ(ev.native_session, evidence_presence::present);
  EXPECT_EQ(ev.stream_log, evidence_presence::present);
  EXPECT_GT(ev.last_progress, 0);
  EXPECT_EQ(judge_liveness(ev).basis, liveness_basis::dispatcher_pid);

  in.dispatcher_pid = 0;
  in.stream_log_path = dir.path() / "missing.log";
  ev = probe_liveness(in, clk);
  auto v = judge_liveness(ev);
  EXPECT_EQ(v.basis, liveness_basis::files_without_pid);
  EXPECT_EQ(v.idle_ms, clk.now() - ev.last_progress);

  in.native_session_path = dir.path() / "nothing";
  EXPECT_EQ(judge_liveness(probe_liveness(in, clk)).basis, liveness_basis::no_evidence);
}

} // namespace
} // namespace ad::runtime

namespace ad::runtime {
namespace {

TEST(liveness_probe, scans_for_the_marker_only_when_no_pid_decides) {
  // A fake /proc: the agent 30 runs, and 31 carries the marker.
  test::temp_dir dir;
  dir.write("30/stat", "30 (agent) S 1 30 30 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 700 1 1");
  dir.write("31/environ", std::string("AGENT_DISPATCH_EXECUTION_ID=m7\0", 32));
  manual_clock clk(1'000'000);
  liveness_probe_input in;
  in.locator_status = "running";
  in.agent_pid = 30;
  in.agent_start_token = "700";
  in.marker = "m7";
  auto ev = probe_liveness(in, clk, dir.path());
  EXPECT_TRUE(ev.marker_pids.empty());
  EXPECT_EQ(judge_liveness(ev).basis, liveness_basis::agent_pid);

  in.agent_start_token = "701"; // pid 30 now belongs to another process
  ev = probe_liveness(in, clk, dir.path());
  EXPECT_EQ(ev.marker_pids, std::vector<int>{31});
  EXPECT_EQ(judge_liveness(ev).basis, liveness_basis::marker);

  in.locator_status = "failed";
  EXPECT_TRUE(probe_liveness(in, clk, dir.path()).marker_pids.empty());
}

TEST(marker_scan, an_empty_environment_is_final_for_zombies_and_kernel_threads) {
  EXPECT_FALSE(empty_environment_is_final("40 (sh) R 1 40 40 0 -1 4194304 0"));
  EXPECT_FALSE(empty_environment_is_final("40 (odd ) name) S 1 40 40 0 -1 4194560 0"));
  EXPECT_TRUE(empty_environment_is_final("41 (sh) Z 1 41 41 0 -1 4194304 0"));
  EXPECT_TRUE(empty_environment_is_final("41 (sh) X 1 41 41 0 -1 4194304 0"));
  EXPECT_TRUE(empty_environment_is_final("42 (kworker/0:1) I 2 0 0 0 -1 69238880 0"));
  EXPECT_TRUE(empty_environment_is_final("no parenthesis"));
  EXPECT_TRUE(empty_environment_is_final("43 (sh) S 1 2"));
}

TEST(marker_scan, an_entry_that_stays_empty_is_passed_over) {
  test::temp_dir dir;
  dir.write("40/environ", "");
  dir.write("40/stat", "40 (sh) R 1 40 40 0 -1 4194304 0");
  dir.write("43/environ", std::string("AGENT_DISPATCH_EXECUTION_ID=m4\0", 32));
  EXPECT_EQ(processes_with_marker("m4", dir.path()), std::vector<int>{43});
}

TEST(process_group_probe, a_group_of_zombies_is_gone) {
  test::temp_dir dir;
  dir.write("20/stat", "20 (sh) Z 1 20 20 0 -1 0");
  dir.write("21/stat", "21 (odd ) name) Z 1 20 20 0 -1 0");
  dir.write("22/stat", "22 (other) S 1 22 22 0 -1 0");
  EXPECT_EQ(probe_process_group(20, dir.path()), group_liveness::gone);
  EXPECT_EQ(probe_process_group(22, dir.path()), group_liveness::alive);
  dir.write("23/stat", "23 (sleep) S 1 20 20 0 -1 0");
  EXPECT_EQ(probe_process_group(20, dir.path()), group_liveness::alive);
  EXPECT_EQ(probe_process_group(99, dir.path()), group_liveness::gone);
  EXPECT_EQ(probe_process_group(0, dir.path()), group_liveness::gone);
}

TEST(process_group_probe, our_own_group_is_alive) {
  EXPECT_EQ(probe_process_group(static_cast<int>(::getpgrp())), group_liveness::alive);
}

} // namespace
} // namespace ad::runtime
