// The pi session watcher on the deterministic scheduler with fixture
// sessions: first report, change on a later poll, no report without change,
// session discovery in a folder, injected observations, exit.

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <vector>

#include "actors/attempt/pi_watcher.hpp"
#include "messages/types.hpp"
#include "runtime/core/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::actors {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

using reports = std::vector<messages::pi_phase_report>;

messages::pi_phase_subscriber_actor::behavior_type collector(
  messages::pi_phase_subscriber_actor::pointer, std::shared_ptr<reports> out) {
  return {[out](messages::pi_phase_changed& c) { out->push_back(c.report); }};
}

std::string fixture(const char* name) {
  auto text = runtime::read_file(test::source_dir() / "tests/fixtures/agents/pi-sessions" / name);
  EXPECT_TRUE(text.is_ok()) << name;
  return text.is_ok() ? *text : std::string{};
}

class pi_watcher_test : public ::testing::Test {
protected:
  static caf::actor_system_config& configure(caf::actor_system_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.file-verbosity", caf::atom("quiet"));
    cfg.set("logger.console-verbosity", caf::atom("quiet"));
    messages::register_message_types(cfg);
    return cfg;
  }
  pi_watcher_test()
    : sys(configure(cfg)),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {}
  ~pi_watcher_test() override {
    if (watcher)
      caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
    if (sink)
      caf::anon_send_exit(sink, caf::exit_reason::user_shutdown);
    drain();
  }
  void drain() {
    while (sched.try_run_once()) {
    }
  }
  void advance(caf::timespan d) {
    sched.clock().advance_time(d);
    drain();
  }
  void start(messages::pi_watch_target target) {
    sink = sys.spawn(collector, seen);
    watcher = sys.spawn(pi_watcher_impl, sink, std::move(target));
    drain();
  }

  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  test::temp_dir dir;
  std::shared_ptr<reports> seen = std::make_shared<reports>();
  messages::pi_phase_subscriber_actor sink;
  messages::pi_watcher_actor watcher;
};

TEST_F(pi_watcher_test, ReportsTheFirstReadingAndThenOnlyChanges) {
  auto file = dir.write("s.jsonl", fixture("tool-running.jsonl"));
  start({file.string(), "", "", 100});
  ASSERT_EQ(seen->size(), 1u);
  EXPECT_EQ(seen->at(0).phase, "tool-running");
  EXPECT_EQ(seen->at(0).session_file, file.string());
  EXPECT_EQ(seen->at(0).expected_tool_call_ids, (std::vector<std::string>{"c1", "c2", "c3"}));
  EXPECT_EQ(seen->at(0).completed_tool_call_ids, (std::vector<std::string>{"c2"}));
  EXPECT_EQ(seen->at(0).pending_tool_call_ids, (std::vector<std::string>{"c1", "c3"}));
  // Polls without a change report nothing.
  advance(100ms);
  advance(100ms);
  EXPECT_EQ(seen->size(), 1u);
  // The session moves on; the next poll reports it, not earlier.
  ASSERT_TRUE(runtime::write_file_atomic(file, fixture("finishing.jsonl")).is_ok());
  advance(99ms);
  EXPECT_EQ(seen->size(), 1u);
  advance(1ms);
  ASSERT_EQ(seen->size(), 2u);
  EXPECT_EQ(seen->at(1).phase, "finishing");
  EXPECT_TRUE(seen->at(1).pending_tool_call_ids.empty());
}

TEST_F(pi_watcher_test, FindsTheSessionFileOncePiCreatesIt) {
  const std::string id = "8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1b";
  auto sessions = dir.path() / "pi-sessions";
  start({"", sessions.string(), id, 50});
  ASSERT_EQ(seen->size(), 1u);
  EXPECT_EQ(seen->at(0).phase, "starting");
  EXPECT_EQ(seen->at(0).reason, "native-session-file-missing");
  EXPECT_EQ(seen->at(0).session_file, "");
  auto file = dir.write("pi-sessions/2026-11-29T12-00-00-000Z_" + id + ".jsonl",
                        fixture("awaiting-model-user.jsonl"));
  advance(50ms);
  ASSERT_EQ(seen->size(), 2u);
  EXPECT_EQ(seen->at(1).phase, "awaiting-model");
  EXPECT_EQ(seen->at(1).session_file, file.string());
}

TEST_F(pi_watcher_test, ReportsUnknownWithItsReason) {
  auto file = dir.write("s.jsonl", fixture("unknown-duplicate-tool-call.jsonl"));
  start({file.string(), "", "", 100});
  ASSERT_EQ(seen->size(), 1u);
  EXPECT_EQ(seen->at(0).phase, "unknown");
  EXPECT_EQ(seen->at(0).reason, "duplicate-tool-call-id");
}

TEST_F(pi_watcher_test, InjectedObservationsAreReportedLikePolledOnes) {
  auto file = dir.write("s.jsonl", fixture("finishing.jsonl"));
  start({file.string(), "", "", 1000});
  ASSERT_EQ(seen->size(), 1u);
  messages::pi_phase_report replayed;
  replayed.session_file = file.string();
  replayed.phase = "tool-running";
  replayed.reason = "tool-calls-pending";
  replayed.pending_tool_call_ids = {"x"};
  caf::anon_send(watcher, messages::pi_session_observed{replayed});
  caf::anon_send(watcher, messages::pi_session_observed{replayed});  // same: no report
  drain();
  ASSERT_EQ(seen->size(), 2u);
  EXPECT_EQ(seen->at(1), replayed);
}

TEST_F(pi_watcher_test, StopsWhenToldToExit) {
  auto file = dir.write("s.jsonl", fixture("finishing.jsonl"));
  start({file.string(), "", "", 100});
  caf::anon_send_exit(watcher, caf::exit_reason::user_shutdown);
  drain();
  ASSERT_TRUE(runtime::write_file_atomic(file, fixture("tool-running.jsonl")).is_ok());
  advance(1s);
  EXPECT_EQ(seen->size(), 1u);
  watcher = nullptr;
}

} // namespace
} // namespace ad::actors
