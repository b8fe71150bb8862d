// The reactor's kept children (docs/keeper.md, docs/restart.md): agents run
// under the real ad-keeper binary, their lines read from the keeper's spool,
// their exit from its exit record; keepers another process started are
// adopted; a keeper's death ends its agent's group; a stop goes through the
// keeper.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "runtime/core/files.hpp"
#include "runtime/keeper/keeper_liveness.hpp"
#include "runtime/keeper/keeper_records.hpp"
#include "runtime/process/liveness.hpp"
#include "runtime/process/reactor.hpp"
#include "tests/runtime/process/collecting_sink.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/eventually.hpp"

namespace ad::runtime {
namespace {

using namespace std::chrono_literals;
using testing::collecting_sink;
namespace fs = std::filesystem;

using ad::test::eventually;

fs::path keeper_binary() { return test::binary_dir() / "ad-keeper"; }

bool alive(int pid) { return pid > 0 && ::kill(pid, 0) == 0; }

class reactor_kept : public ::testing::Test {
protected:
  void SetUp() override {
    start_reactor(50);
    attempt_ = dir_.path() / "attempt";
    fs::create_directories(attempt_);
  }

  void start_reactor(int64_t kept_poll_ms) {
    reactor_.reset();
    reactor_options opt;
    opt.default_grace_ms = 1000;
    opt.kept_poll_ms = kept_poll_ms;
    opt.keeper_margin_ms = 1000;
    auto r = process_reactor::start(opt);
    ASSERT_TRUE(r.is_ok()) << r.error().to_string();
    reactor_ = std::move(r.value());
  }

  spawn_outcome run_kept(const std::string& script, std::shared_ptr<collecting_sink> sink,
                         const fs::path& lease_file = {}, int64_t lease_ms = 0) {
    spawn_request req;
    req.argv = {"/bin/sh", "-c", script};
    req.cwd = dir_.path();
    req.marker = "kept-test-" + std::to_string(::getpid());
    req.sink = std::move(sink);
    req.keeper = keeper_launch{keeper_binary(), attempt_, 500, lease_file, lease_ms, {}};
    auto out = reactor_->spawn(std::move(req));
    EXPECT_TRUE(out.is_ok()) << out.error().to_string();
    return out.is_ok() ? *out : spawn_outcome{};
  }

  // Starts a keeper as another dispatcher would have, detached from this
  // process (a grandchild re-parented away), and waits for its keeper.json.
  keeper_record start_foreign_keeper(const std::string& script) {
    std::vector<std::string> args{keeper_binary().string(), "--attempt-dir", attempt_.string(),
                                  "--marker", "foreign-" + std::to_string(::getpid()),
                                  "--grace-ms", "500", "--", "/bin/sh", "-c", script};
    pid_t mid = ::fork();
    if (mid == 0) {
      if (::fork() == 0) {
        std::vector<char*> argv;
        for (auto& a : args)
          argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data());
        ::_exit(127);
      }
      ::_exit(0);
    }
    int st = 0;
    ::waitpid(mid, &st, 0);
    keeper_record rec;
    EXPECT_TRUE(eventually([&] {
      auto r = read_keeper_record(attempt_);
      if (r.is_ok())
        rec = *r;
      return r.is_ok();
    })) << "the keeper wrote no keeper.json";
    return rec;
  }

  result<child_id> adopt(const keeper_record& rec, std::shared_ptr<collecting_sink> sink) {
    adopt_request req;
    req.attempt_dir = attempt_;
    req.keeper_pid = rec.keeper_pid;
    req.keeper_start_token = rec.keeper_start_token;
    req.sink = std::move(sink);
    return reactor_->adopt(std::move(req));
  }

  test::temp_dir dir_;
  fs::path attempt_;
  std::unique_ptr<process_reactor> reactor_;
};

TEST_F(reactor_kept, the_agents_lines_come_from_the_spool_and_its_exit_from_the_record) {
  ASSERT_TRUE(fs::exists(keeper_binary())) << keeper_binary();
  auto sink = std::make_shared<collecting_sink>();
  auto out = run_kept("echo out1; echo err1 >&2; printf 'out2'; exit 3", sink);
  ASSERT_EQ(out.kind, spawn_result_kind::started);
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->kind, exit_kind::exited);
  EXPECT_EQ(ex->exit_code, 3);
  EXPECT_TRUE(ex->reason.empty()) << ex->reason;
  EXPECT_EQ(sink->texts(output_stream::stdout_stream), (std::vector<std::string>{"out1", "out2"}));
  EXPECT_EQ(sink->texts(output_stream::stderr_stream), (std::vector<std::string>{"err1"}));
  EXPECT_EQ(sink->exit_count(), 1);
  // The keeper wrote the spool and the records itself.
  auto log = read_file(attempt_ / "stream.log");
  ASSERT_TRUE(log.is_ok());
  EXPECT_NE(log->find("[stdout] out1\n"), std::string::npos) << *log;
  auto rec = read_exit_record(attempt_);
  ASSERT_TRUE(rec.is_ok());
  EXPECT_EQ(rec->state, keeper_exit_state::ended);
  EXPECT_EQ(rec->record.exit_code, 3);
  // The pid the reactor reports is the keeper's; the agent's is in keeper.json.
  auto keeper = read_keeper_record(attempt_);
  ASSERT_TRUE(keeper.is_ok());
  EXPECT_EQ(keeper->keeper_pid, out.pid);
  EXPECT_NE(keeper->agent_pid, out.pid);
}

// Between its periodic polls the reactor learns of the keeper's record and
// of the agent's lines through inotify alone; the dispatcher's own files
// beside them (the locator, its logs), written all along, do not hide them.
TEST_F(reactor_kept, the_keepers_record_and_lines_arrive_between_periodic_polls) {
  start_reactor(600'000);
  auto sink = std::make_shared<collecting_sink>();
  auto out = run_kept("sleep 0.3; echo first; sleep 0.3; echo second >&2; exec sleep 60", sink);
  ASSERT_EQ(out.kind, spawn_result_kind::started);
  auto append = [](const fs::path& file, const std::string& text) {
    std::ofstream(file, std::ios::app) << text;
  };
  std::atomic<bool> stop{false};
  std::thread scribbler([&] {
    for (int i = 0; !stop && i < 400; ++i) {
      (void) write_file_atomic(attempt_ / "locator.json", "{\"n\": " + std::to_string(i) + "}",
                               durability::buffered);
      append(attempt_ / "heartbeat.log", "beat\n");
      append(attempt_ / "normalized-output.log", "shown\n");
      std::this_thread::sleep_for(5ms);
    }
  });
  auto agent = sink->wait_agent(5s);
  bool first = sink->wait_line("first", 5s);
  bool second = sink->wait_line("second", 5s);
  stop = true;
  scribbler.join();
  ASSERT_TRUE(agent.has_value());
  auto rec = read_keeper_record(attempt_);
  ASSERT_TRUE(rec.is_ok());
  EXPECT_EQ(agent->pid, rec->agent_pid);
  EXPECT_TRUE(first);
  EXPECT_TRUE(second);
  ASSERT_TRUE(reactor_->terminate(out.id).is_ok());
  ASSERT_TRUE(sink->wait_exit().has_value());
}

TEST_F(reactor_kept, a_keeper_started_elsewhere_is_adopted_and_followed_to_its_agents_end) {
  auto rec = start_foreign_keeper("echo before; sleep 0.6; echo after >&2; exit 4");
  auto sink = std::make_shared<collecting_sink>();
  auto id = adopt(rec, sink);
  ASSERT_TRUE(id.is_ok()) << id.error().to_string();
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->id, *id);
  EXPECT_EQ(ex->kind, exit_kind::exited);
  EXPECT_EQ(ex->exit_code, 4);
  // Every line from the spool's first, the one written before adoption too.
  EXPECT_EQ(sink->texts(output_stream::stdout_stream), (std::vector<std::string>{"before"}));
  EXPECT_EQ(sink->texts(output_stream::stderr_stream), (std::vector<std::string>{"after"}));
}

TEST_F(reactor_kept, a_keeper_that_ended_before_adoption_gives_its_lines_and_exit_at_once) {
  auto rec = start_foreign_keeper("echo done; exit 0");
  ASSERT_TRUE(eventually([&] {
    auto e = read_exit_record(attempt_);
    return e.is_ok() && e->state == keeper_exit_state::ended;
  }));
  auto sink = std::make_shared<collecting_sink>();
  auto id = adopt(rec, sink);
  ASSERT_TRUE(id.is_ok()) << id.error().to_string();
  auto ex = sink->wait_exit(5s);
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->exit_code, 0);
  EXPECT_EQ(sink->texts(output_stream::stdout_stream), (std::vector<std::string>{"done"}));
}

TEST_F(reactor_kept, a_killed_keeper_ends_its_agents_group_and_says_why) {
  auto sink = std::make_shared<collecting_sink>();
  // The agent and a child of it in its group; both ignore SIGTERM.
  auto out = run_kept("trap '' TERM; sleep 60 & echo started; wait", sink);
  ASSERT_EQ(out.kind, spawn_result_kind::started);
  ASSERT_TRUE(sink->wait_line("started"));
  auto keeper = read_keeper_record(attempt_);
  ASSERT_TRUE(keeper.is_ok());
  ASSERT_EQ(::kill(out.pid, SIGKILL), 0);
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value()) << "no exit after the keeper's death";
  EXPECT_EQ(ex->kind, exit_kind::signaled);
  EXPECT_EQ(ex->signal, SIGKILL);
  EXPECT_NE(ex->reason.find("keeper"), std::string::npos) << ex->reason;
  EXPECT_TRUE(eventually([&] { return !alive(keeper->agent_pid); }));
  EXPECT_TRUE(eventually(
      [&] { return probe_process_group(keeper->agent_pgid) == group_liveness::gone; }))
      << "a member of the agent's group outlived its keeper";
}

// A keeper SIGKILLed (no exit.json, no cleanup of its own): what its agent
// started outside its group (setsid, closed stdio) carries the marker and,
// with a cgroup, is in it: the reactor ends it too. Before, only the
// agent's group was killed and these lived on.
TEST_F(reactor_kept, a_killed_keeper_takes_along_what_its_agent_started_outside_its_group) {
  for (const char* containment : {"auto", "subreaper"}) {
    SCOPED_TRACE(containment);
    fs::remove_all(attempt_);
    fs::create_directories(attempt_);
    const fs::path pids = dir_.path() / "pids";
    fs::remove(pids);
    ::setenv("AD_KEEPER_CONTAINMENT", containment, 1);
    auto sink = std::make_shared<collecting_sink>();
    auto out = run_kept("setsid sleep 301 & echo $! >> " + pids.string() +
                          "; setsid sleep 302 >/dev/null 2>&1 </dev/null & echo $! >> " +
                          pids.string() + "; echo started; wait",
                        sink);
    ::unsetenv("AD_KEEPER_CONTAINMENT");
    ASSERT_EQ(out.kind, spawn_result_kind::started);
    ASSERT_TRUE(sink->wait_line("started"));
    std::vector<int> children;
    std::istringstream listed(*read_file(pids));
    for (std::string line; std::getline(listed, line);)
      children.push_back(std::atoi(line.c_str()));
    ASSERT_EQ(children.size(), 2u);
    ASSERT_EQ(::kill(out.pid, SIGKILL), 0);
    auto ex = sink->wait_exit();
    ASSERT_TRUE(ex.has_value()) << "no exit after the keeper's death";
    auto gone = [](int pid) {
      auto stat = read_file("/proc/" + std::to_string(pid) + "/stat");
      auto entry = stat ? parse_process_stat(*stat) : std::nullopt;
      return !entry || entry->state == 'Z' || entry->state == 'X';
    };
    for (int pid : children)
      EXPECT_TRUE(eventually([&] { return gone(pid); })) << "pid " << pid << " outlived its keeper";
    auto keeper = read_keeper_record(attempt_);
    ASSERT_TRUE(keeper.is_ok());
    if (!keeper->cgroup.empty()) {
      EXPECT_FALSE(fs::exists(keeper->cgroup)) << "the attempt's cgroup was left";
    }
  }
}

// The agent itself is already dead (a zombie of its stopped keeper) when the
// keeper dies; a process it started lives on in its group and is killed.
TEST_F(reactor_kept, a_child_left_in_the_group_of_a_dead_agent_is_killed_with_its_keeper) {
  auto sink = std::make_shared<collecting_sink>();
  auto out = run_kept("sleep 60 & echo started; wait", sink);
  ASSERT_EQ(out.kind, spawn_result_kind::started);
  ASSERT_TRUE(sink->wait_line("started"));
  auto keeper = read_keeper_record(attempt_);
  ASSERT_TRUE(keeper.is_ok());
  ASSERT_EQ(::kill(out.pid, SIGSTOP), 0);
  ASSERT_EQ(::kill(keeper->agent_pid, SIGKILL), 0);
  ASSERT_TRUE(eventually([&] { return probe_agent(*keeper) != process_presence::alive; }));
  ASSERT_EQ(probe_process_group(keeper->agent_pgid), group_liveness::alive);
  ASSERT_EQ(::kill(out.pid, SIGKILL), 0);
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->kind, exit_kind::signaled);
  EXPECT_TRUE(eventually(
      [&] { return probe_process_group(keeper->agent_pgid) == group_liveness::gone; }))
      << "the agent's child outlived its keeper";
}

TEST_F(reactor_kept, terminate_stops_the_agent_through_its_keeper) {
  auto sink = std::make_shared<collecting_sink>();
  auto out = run_kept("echo started; exec sleep 60", sink);
  ASSERT_TRUE(sink->wait_line("started"));
  ASSERT_TRUE(reactor_->terminate(out.id).is_ok());
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->kind, exit_kind::signaled);
  EXPECT_EQ(ex->signal, SIGTERM);
  auto rec = read_exit_record(attempt_);
  ASSERT_TRUE(rec.is_ok());
  EXPECT_EQ(rec->record.termination.initiator, keeper_initiator::dispatcher);
}

// A worker node's keepers watch its lease file (docs/distributed.md).
TEST_F(reactor_kept, a_lease_that_is_not_renewed_stops_the_agent_through_its_keeper) {
  auto lease = dir_.path() / "lease.1";
  ASSERT_TRUE(write_file_atomic(lease, "", durability::buffered).is_ok());
  auto sink = std::make_shared<collecting_sink>();
  auto started = std::chrono::steady_clock::now();
  run_kept("echo started; exec sleep 60", sink, lease, 1000);
  ASSERT_TRUE(sink->wait_line("started"));
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->kind, exit_kind::signaled);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  auto rec = read_exit_record(attempt_);
  ASSERT_TRUE(rec.is_ok());
  EXPECT_EQ(rec->record.termination.initiator, keeper_initiator::lease);
}

TEST_F(reactor_kept, an_adopted_keeper_is_stopped_through_its_keeper_too) {
  auto rec = start_foreign_keeper("echo started; exec sleep 60");
  auto sink = std::make_shared<collecting_sink>();
  auto id = adopt(rec, sink);
  ASSERT_TRUE(id.is_ok());
  ASSERT_TRUE(sink->wait_line("started"));
  ASSERT_TRUE(reactor_->terminate(*id).is_ok());
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->kind, exit_kind::signaled);
  EXPECT_EQ(ex->signal, SIGTERM);
  EXPECT_TRUE(eventually([&] { return !alive(rec.agent_pid); }));
}

} // namespace
} // namespace ad::runtime
