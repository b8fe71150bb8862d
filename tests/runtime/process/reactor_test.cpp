#include "runtime/process/reactor.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "runtime/process/liveness.hpp"
#include "tests/runtime/process/collecting_sink.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

using namespace std::chrono_literals;
using testing::collecting_sink;

std::size_t thread_count() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task"))
    ++n;
  return n;
}

std::string unique_marker(const std::string& what) {
  static int counter = 0;
  return "test-" + what + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

using ad::test::eventually;

class reactor_test : public ::testing::TestWithParam<reactor_options::watch_choice> {
protected:
  void SetUp() override {
    reactor_options opt;
    opt.watch = GetParam();
    opt.default_grace_ms = 2000;
    opt.orphan_drain_ms = 200;
    opt.sweep_interval_ms = 20;
    auto r = process_reactor::start(opt);
    ASSERT_TRUE(r.is_ok()) << r.error().to_string();
    reactor_ = std::move(r.value());
  }

  spawn_outcome run(std::vector<std::string> argv, std::shared_ptr<collecting_sink> sink,
                    std::string marker = {}, std::size_t cap = default_line_cap,
                    int64_t silence_ms = 0) {
    spawn_request req;
    req.argv = std::move(argv);
    req.cwd = dir_.path();
    req.marker = std::move(marker);
    req.line_cap = cap;
    req.silence_interval_ms = silence_ms;
    req.sink = std::move(sink);
    auto out = reactor_->spawn(std::move(req));
    EXPECT_TRUE(out.is_ok()) << out.error().to_string();
    return out.is_ok() ? *out : spawn_outcome{};
  }

  static std::vector<std::string> sh(const std::string& script) { return {"/bin/sh", "-c", script}; }

  test::temp_dir dir_;
  std::unique_ptr<process_reactor> reactor_;
};

TEST_P(reactor_test, reports_the_watch_mode_asked_for) {
  if (GetParam() == reactor_options::watch_choice::force_signal_fallback)
    EXPECT_EQ(reactor_->watch(), exit_watch::signal_fallback);
  else
    EXPECT_EQ(reactor_->watch(), exit_watch::pidfd); // this kernel has pidfd_open
}

TEST_P(reactor_test, reads_lines_from_both_streams_and_the_exit_code) {
  auto sink = std::make_shared<collecting_sink>();
  auto out = run(sh("echo out1; echo err1 >&2; printf 'out2'; exit 3"), sink);
  EXPECT_EQ(out.kind, spawn_result_kind::started);
  EXPECT_GT(out.pid, 0);
  EXPECT_FALSE(out.start_token.empty());
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->id, out.id);
  EXPECT_EQ(ex->pid, out.pid);
  EXPECT_EQ(ex->kind, exit_kind::exited);
  EXPECT_EQ(ex->exit_code, 3);
  EXPECT_EQ(sink->texts(output_stream::stdout_stream), (std::vector<std::string>{"out1", "out2"}));
  EXPECT_EQ(sink->texts(output_stream::stderr_stream), (std::vector<std::string>{"err1"}));
  EXPECT_EQ(sink->exit_count(), 1);
  for (const auto& l : sink->lines())
    EXPECT_EQ(l.id, out.id);
}

TEST_P(reactor_test, reports_death_by_signal) {
  auto sink = std::make_shared<collecting_sink>();
  run(sh("kill -9 $$"), sink);
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->kind, exit_kind::signaled);
  EXPECT_EQ(ex->signal, SIGKILL);
  EXPECT_EQ(ex->exit_code, 128 + SIGKILL);
}

TEST_P(reactor_test, command_not_found_is_a_launch_failure_with_127) {
  auto sink = std::make_shared<collecting_sink>();
  auto out = run({"ad-no-such-command-for-sure"}, sink);
  EXPECT_EQ(out.kind, spawn_result_kind::launch_failed);
  EXPECT_NE(out.reason.find("command not found"), std::string::npos) << out.reason;
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->kind, exit_kind::launch_failed);
  EXPECT_EQ(ex->exit_code, 127);
  EXPECT_EQ(ex->id, out.id);
  EXPECT_NE(ex->reason.find("ad-no-such-command-for-sure"), std::string::npos);
  EXPECT_EQ(reactor_->running_children(), 0u);
}

TEST_P(reactor_test, a_missing_working_directory_is_a_launch_failure) {
  auto sink = std::make_shared<collecting_sink>();
  spawn_request req;
  req.argv = {"/bin/true"};
  req.cwd = dir_.path() / "missing";
  req.sink = sink;
  auto out = reactor_->spawn(req);
  ASSERT_TRUE(out.is_ok());
  EXPECT_EQ(out->kind, spawn_result_kind::launch_failed);
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->exit_code, 127);
}

TEST_P(reactor_test, a_ten_mib_line_is_cut_at_the_cap_and_the_process_goes_on) {
  auto sink = std::make_shared<collecting_sink>();
  run(sh("head -c 10485760 /dev/zero | tr '\\000' a; echo; echo after; exit 0"), sink);
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->exit_code, 0);
  auto lines = sink->lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].cut, line_cut::truncated);
  EXPECT_EQ(lines[0].text.size(), default_line_cap);
  EXPECT_EQ(lines[0].text.find_first_not_of('a'), std::string::npos);
  EXPECT_EQ(lines[0].dropped_bytes, 10485760u - default_line_cap);
  EXPECT_EQ(lines[1].text, "after");
  EXPECT_EQ(lines[1].cut, line_cut::whole);
}

TEST_P(reactor_test, a_configured_cap_applies) {
  auto sink = std::make_shared<collecting_sink>();
  run(sh("echo 0123456789; echo ab"), sink, {}, 4);
  ASSERT_TRUE(sink->wait_exit().has_value());
  auto lines = sink->lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "0123");
  EXPECT_EQ(lines[0].dropped_bytes, 6u);
  EXPECT_EQ(lines[1].text, "ab");
}

// Bytes of lines as the reactor counts them for flow control.
uint64_t delivered_bytes(const collecting_sink& sink) {
  uint64_t n = 0;
  for (const auto& l : sink.lines())
    n += l.text.size() + 1;
  return n;
}

TEST_P(reactor_test, a_flow_window_stops_reading_until_the_follower_acknowledges) {
  // 64 MB of 100-byte lines from a child that then writes "done".
  auto sink = std::make_shared<collecting_sink>();
  spawn_request req;
  req.argv = sh("yes " + std::string(99, 'a') + " | head -n 671088; echo done");
  req.cwd = dir_.path();
  req.flow_window = 1 << 20;
  req.sink = sink;
  auto out = reactor_->spawn(std::move(req));
  ASSERT_TRUE(out.is_ok());
  // Without acknowledgements the reactor delivers the window and at most
  // one read (256 KiB) past it, however long the child waits.
  ASSERT_TRUE(eventually([&] { return delivered_bytes(*sink) >= (1u << 20); }));
  std::this_thread::sleep_for(300ms);
  uint64_t held = delivered_bytes(*sink);
  EXPECT_LE(held, (1u << 20) + (256u << 10));
  EXPECT_EQ(sink->exit_count(), 0);
  EXPECT_EQ(::kill(out->pid, 0), 0); // blocked in write(2), not ended
  // Acknowledging everything delivered lets the whole output through.
  uint64_t acked = 0;
  ASSERT_TRUE(eventually(
    [&] {
      uint64_t now = delivered_bytes(*sink);
      if (now > acked) {
        reactor_->acknowledge(out->id, now - acked);
        acked = now;
      }
      return sink->exit_count() == 1;
    },
    60s));
  auto lines = sink->lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().text, "done");
  EXPECT_EQ(delivered_bytes(*sink), 671088u * 100u + 5u);
  EXPECT_EQ(sink->wait_exit()->exit_code, 0);
}

TEST_P(reactor_test, a_paused_child_is_still_terminated_and_reported) {
  auto sink = std::make_shared<collecting_sink>();
  spawn_request req;
  req.argv = sh("yes line-of-output");
  req.cwd = dir_.path();
  req.flow_window = 64 << 10;
  req.sink = sink;
  auto out = reactor_->spawn(std::move(req));
  ASSERT_TRUE(out.is_ok());
  ASSERT_TRUE(eventually([&] { return delivered_bytes(*sink) >= (64u << 10); }));
  ASSERT_TRUE(reactor_->terminate(out->id, 200).is_ok());
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->kind, exit_kind::signaled);
  EXPECT_NE(::kill(out->pid, 0), 0);
}

TEST_P(reactor_test, a_paused_child_gets_no_silence_ticks) {
  auto sink = std::make_shared<collecting_sink>();
  spawn_request req;
  req.argv = sh("yes busy | head -c 8192; sleep 5");
  req.cwd = dir_.path();
  req.flow_window = 4096;
  req.silence_interval_ms = 50;
  req.sink = sink;
  auto out = reactor_->spawn(std::move(req));
  ASSERT_TRUE(out.is_ok());
  // Paused, the follower is behind: time spent so is not the child's silence.
  // (A loaded machine may start the child more than 50 ms late: silence
  // before its first line is counted, as it should be.)
  ASSERT_TRUE(eventually([&] { return delivered_bytes(*sink) >= 4096; }));
  const auto before = sink->ticks().size();
  std::this_thread::sleep_for(400ms);
  EXPECT_EQ(sink->ticks().size(), before);
  reactor_->acknowledge(out->id, 1u << 30);
  ASSERT_TRUE(eventually([&] { return sink->ticks().size() > before; }));
  reactor_->terminate(out->id, 100);
  ASSERT_TRUE(sink->wait_exit().has_value());
}

TEST_P(reactor_test, binary_garbage_on_stdout_is_survived) {
  auto sink = std::make_shared<collecting_sink>();
  run(sh("head -c 3000000 /dev/urandom; echo; echo tail-ok"), sink);
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->exit_code, 0);
  auto out = sink->texts(output_stream::stdout_stream);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), "tail-ok");
  std::size_t bytes = 0;
  for (const auto& l : sink->lines())
    bytes += l.text.size() + l.dropped_bytes + 1;
  EXPECT_EQ(bytes, 3000000u + 1 + 8); // every byte accounted for
}

TEST_P(reactor_test, the_child_gets_marker_env_cwd_devnull_stdin_and_its_own_group) {
  auto sink = std::make_shared<collecting_sink>();
  spawn_request req;
  req.argv = sh("echo \"m=$AGENT_DISPATCH_EXECUTION_ID\"; echo \"x=$AD_EXTRA\"; pwd; "
                "cat; echo stdin-done; cut -d' ' -f5,6 /proc/$$/stat");
  req.cwd = dir_.path();
  req.marker = "mk-1";
  req.env_additions = {{"AD_EXTRA", "v|1"}};
  req.sink = sink;
  auto out = reactor_->spawn(req);
  ASSERT_TRUE(out.is_ok());
  ASSERT_TRUE(sink->wait_exit().has_value());
  auto lines = sink->texts(output_stream::stdout_stream);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "m=mk-1");
  EXPECT_EQ(lines[1], "x=v|1");
  EXPECT_EQ(lines[2], dir_.path().string());
  EXPECT_EQ(lines[3], "stdin-done");
  std::string pid = std::to_string(out->pid);
  EXPECT_EQ(lines[4], pid + " " + pid); // process group and session led by the child
}

TEST_P(reactor_test, terminate_kills_a_grandchild_with_the_group) {
  auto sink = std::make_shared<collecting_sink>();
  std::string marker = unique_marker("grandchild");
  auto out = run(sh("sleep 300 & echo started; wait"), sink, marker);
  ASSERT_TRUE(sink->wait_line("started"));
  ASSERT_TRUE(eventually([&] { return processes_with_marker(marker).size() >= 2; }));
  ASSERT_TRUE(reactor_->terminate(out.id, 2000).is_ok());
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->kind, exit_kind::signaled);
  EXPECT_EQ(ex->signal, SIGTERM);
  EXPECT_TRUE(eventually([&] { return processes_with_marker(marker).empty(); }));
}

TEST_P(reactor_test, a_grandchild_that_outlives_the_agent_is_killed_on_terminate) {
  auto sink = std::make_shared<collecting_sink>();
  std::string marker = unique_marker("orphan");
  // The agent exits at once; its grandchild keeps the pipes open.
  auto out = run(sh("sleep 300 & echo bye"), sink, marker);
  auto ex = sink->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->kind, exit_kind::exited);
  EXPECT_EQ(sink->texts(output_stream::stdout_stream), std::vector<std::string>{"bye"});
  ASSERT_EQ(processes_with_marker(marker).size(), 1u);
  ASSERT_TRUE(reactor_->terminate(out.id, 500).is_ok());
  EXPECT_TRUE(eventually([&] { return processes_with_marker(marker).empty(); }));
  EXPECT_EQ(sink->exit_count(), 1);
}

TEST_P(reactor_test, a_child_ignoring_sigterm_is_killed_after_the_grace) {
  auto sink = std::make_shared<collecting_sink>();
  std::string marker = unique_marker("stubborn");
  auto out = run(sh("trap '' TERM; echo ready; while :; do sleep 0.05; done"), sink, marker);
  ASSERT_TRUE(sink->wait_line("ready"));
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(reactor_->terminate(out.id, 300).is_ok());
  auto ex = sink->wait_exit();
  auto elapsed = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->kind, exit_kind::signaled);
  EXPECT_EQ(ex->signal, SIGKILL);
  EXPECT_GE(elapsed, 300ms);
  EXPECT_LT(elapsed, 5s);
  EXPECT_TRUE(eventually([&] { return processes_with_marker(marker).empty(); }));
}

TEST_P(reactor_test, silence_ticks_come_at_the_interval_and_reset_on_output) {
  auto sink = std::make_shared<collecting_sink>();
  auto t0 = std::chrono::steady_clock::now();
  run(sh("sleep 0.25; echo x; sleep 0.25"), sink, {}, default_line_cap, 40);
  ASSERT_TRUE(sink->wait_exit().has_value());
  auto elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - t0)
                      .count();
  auto ticks = sink->ticks();
  ASSERT_GE(ticks.size(), 6u);
  // Never more often than the interval.
  EXPECT_LE(static_cast<int64_t>(ticks.size()), elapsed_ms / 40 + 1);
  int64_t previous = 0;
  bool reset_seen = false;
  for (const auto& t : ticks) {
    EXPECT_GE(t.silent_for_ms, 40);
    if (t.silent_for_ms < previous)
      reset_seen = true; // the line started a new silence
    previous = t.silent_for_ms;
  }
  EXPECT_TRUE(reset_seen);
}

TEST_P(reactor_test, no_silence_ticks_without_an_interval) {
  auto sink = std::make_shared<collecting_sink>();
  run(sh("sleep 0.1"), sink);
  ASSERT_TRUE(sink->wait_exit().has_value());
  EXPECT_TRUE(sink->ticks().empty());
}

TEST_P(reactor_test, sixty_four_children_share_one_reactor_thread) {
  std::size_t threads_before = thread_count();
  std::vector<std::shared_ptr<collecting_sink>> sinks;
  std::vector<spawn_outcome> outs;
  for (int i = 0; i < 64; ++i) {
    sinks.push_back(std::make_shared<collecting_sink>());
    // Each child waits for the test to create "release" in its cwd.
    outs.push_back(run(sh("echo hello " + std::to_string(i) +
                          "; while [ ! -e release ]; do sleep 0.02; done; echo bye >&2"),
                       sinks.back()));
  }
  for (auto& s : sinks)
    ASSERT_TRUE(s->wait_line("hello " + std::to_string(&s - sinks.data())));
  EXPECT_EQ(reactor_->running_children(), 64u);
  EXPECT_EQ(thread_count(), threads_before);
  dir_.write("release", "");
  for (std::size_t i = 0; i < sinks.size(); ++i) {
    auto ex = sinks[i]->wait_exit();
    ASSERT_TRUE(ex.has_value());
    EXPECT_EQ(ex->exit_code, 0);
    EXPECT_EQ(ex->id, outs[i].id);
    EXPECT_EQ(sinks[i]->texts(output_stream::stderr_stream), std::vector<std::string>{"bye"});
  }
  EXPECT_EQ(thread_count(), threads_before);
  EXPECT_EQ(reactor_->running_children(), 0u);
}

TEST_P(reactor_test, shutdown_terminates_running_children_and_reports_their_exit) {
  auto sink = std::make_shared<collecting_sink>();
  std::string marker = unique_marker("shutdown");
  run(sh("echo up; exec sleep 300"), sink, marker);
  ASSERT_TRUE(sink->wait_line("up"));
  reactor_->shutdown();
  auto ex = sink->wait_exit(0ms);
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->signal, SIGTERM);
  EXPECT_TRUE(eventually([&] { return processes_with_marker(marker).empty(); }));
  spawn_request req;
  req.argv = {"/bin/true"};
  req.cwd = dir_.path();
  req.sink = sink;
  EXPECT_TRUE(reactor_->spawn(req).error().is_unsupported());
}

TEST_P(reactor_test, terminate_from_inside_a_sink_works) {
  // The sink asks to terminate when it sees "go": no deadlock, exit follows.
  class self_terminating final : public process_event_sink {
  public:
    explicit self_terminating(process_reactor& r) : r_(r) {}
    void on_line(process_line&& line) override {
      if (line.text == "go")
        r_.terminate(line.id, 100);
    }
    void on_silence(const process_silence&) override {}
    void on_exit(const process_exit& e) override { inner->on_exit(e); }
    std::shared_ptr<collecting_sink> inner = std::make_shared<collecting_sink>();

  private:
    process_reactor& r_;
  };
  auto sink = std::make_shared<self_terminating>(*reactor_);
  spawn_request req;
  req.argv = sh("echo go; exec sleep 300");
  req.cwd = dir_.path();
  req.sink = sink;
  ASSERT_TRUE(reactor_->spawn(req).is_ok());
  auto ex = sink->inner->wait_exit();
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex->signal, SIGTERM);
}

INSTANTIATE_TEST_SUITE_P(watch, reactor_test,
                         ::testing::Values(reactor_options::watch_choice::automatic,
                                           reactor_options::watch_choice::force_signal_fallback),
                         [](const auto& info) {
                           return info.param == reactor_options::watch_choice::automatic
                                    ? std::string("pidfd")
                                    : std::string("signal_fallback");
                         });

} // namespace
} // namespace ad::runtime
