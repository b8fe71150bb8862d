// The process edge actor on CAF's deterministic coordinator. Events come
// from the reactor thread, so the subscriber here is a scoped (blocking)
// actor: its mailbox is safe to fill from a foreign thread and it does not
// go through the test coordinator's job queue.

#include "actors/process/process_actor.hpp"

#include <caf/all.hpp>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <vector>

#include "messages/types.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::actors {
namespace {

using namespace std::chrono_literals;
namespace msg = ad::messages;

class process_actor_test : public ::testing::Test {
protected:
  static caf::actor_system_config& configure(caf::actor_system_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.file-verbosity", caf::atom("quiet"));
    cfg.set("logger.console-verbosity", caf::atom("quiet"));
    msg::register_message_types(cfg);
    return cfg;
  }

  process_actor_test()
    : sys(configure(cfg)),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())),
      self(sys) {
    process_actor_config pc;
    pc.reactor.default_grace_ms = 1000;
    pc.reactor.orphan_drain_ms = 200;
    proc = sys.spawn(process_actor_impl, pc);
    drain();
  }

  ~process_actor_test() override {
    caf::anon_send_exit(proc, caf::exit_reason::user_shutdown);
    drain();
  }

  void drain() {
    while (sched.try_run_once()) {
    }
  }

  // Sends spawn_process from the scoped actor and returns the reply (or the
  // error through err).
  msg::process_spawned spawn(msg::spawn_process req, caf::error* err = nullptr) {
    auto handle = self->request(proc, 10s, std::move(req));
    drain();
    msg::process_spawned out;
    handle.receive([&](msg::process_spawned& r) { out = std::move(r); },
                   [&](caf::error& e) {
                     if (err != nullptr)
                       *err = e;
                     else
                       ADD_FAILURE() << sys.render(e);
                   });
    return out;
  }

  // Collects events until the child's exit (or the timeout).
  struct events {
    std::vector<msg::process_line> lines;
    std::vector<msg::process_silence> ticks;
    std::vector<msg::process_exit> exits;
  };
  events collect_until_exit(std::chrono::milliseconds timeout = 20s) {
    events ev;
    auto end = std::chrono::steady_clock::now() + timeout;
    while (ev.exits.empty() && std::chrono::steady_clock::now() < end) {
      self->receive([&](msg::process_line& l) { ev.lines.push_back(std::move(l)); },
                    [&](msg::process_silence& t) { ev.ticks.push_back(t); },
                    [&](msg::process_exit& e) { ev.exits.push_back(e); },
                    caf::after(std::chrono::milliseconds(200)) >> [] {});
    }
    return ev;
  }

  msg::spawn_process request_for(std::string script) {
    msg::spawn_process req;
    req.argv = {"/bin/sh", "-c", std::move(script)};
    req.cwd = dir.path().string();
    return req;
  }

  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  caf::scoped_actor self;
  msg::process_actor proc;
  test::temp_dir dir;
};

TEST_F(process_actor_test, spawns_and_forwards_lines_then_the_exit) {
  auto req = request_for("echo \"$AGENT_DISPATCH_EXECUTION_ID $X\"; echo oops >&2; exit 4");
  req.marker = "mark-7";
  req.env_additions = {"X=y=z"};
  auto reply = spawn(req);
  EXPECT_EQ(reply.outcome, msg::process_start::started);
  EXPECT_GT(reply.child, 0u);
  EXPECT_GT(reply.pid, 0);
  EXPECT_FALSE(reply.start_token.empty());
  auto ev = collect_until_exit();
  ASSERT_EQ(ev.exits.size(), 1u);
  EXPECT_EQ(ev.exits[0].child, reply.child);
  EXPECT_EQ(ev.exits[0].pid, reply.pid);
  EXPECT_EQ(ev.exits[0].end, msg::process_end::exited);
  EXPECT_EQ(ev.exits[0].exit_code, 4);
  ASSERT_EQ(ev.lines.size(), 2u);
  for (const auto& l : ev.lines) {
    EXPECT_EQ(l.child, reply.child);
    if (l.stream == msg::process_stream::out)
      EXPECT_EQ(l.text, "mark-7 y=z");
    else
      EXPECT_EQ(l.text, "oops");
  }
}

TEST_F(process_actor_test, command_not_found_replies_launch_failed_and_sends_the_exit) {
  msg::spawn_process req;
  req.argv = {"ad-surely-missing-agent"};
  req.cwd = dir.path().string();
  auto reply = spawn(req);
  EXPECT_EQ(reply.outcome, msg::process_start::launch_failed);
  EXPECT_EQ(reply.exit_code, 127);
  EXPECT_NE(reply.reason.find("command not found"), std::string::npos);
  auto ev = collect_until_exit();
  ASSERT_EQ(ev.exits.size(), 1u);
  EXPECT_EQ(ev.exits[0].end, msg::process_end::launch_failed);
  EXPECT_EQ(ev.exits[0].exit_code, 127);
  EXPECT_EQ(ev.exits[0].child, reply.child);
}

TEST_F(process_actor_test, silence_ticks_and_terminate) {
  auto req = request_for("trap '' TERM; echo up; exec sleep 300");
  req.silence_interval_ms = 30;
  req.line_cap = 2;
  auto reply = spawn(req);
  ASSERT_EQ(reply.outcome, msg::process_start::started);
  events ev;
  while (ev.ticks.size() < 3) {
    bool got = false;
    self->receive([&](msg::process_line& l) { ev.lines.push_back(std::move(l)); got = true; },
                  [&](msg::process_silence& t) { ev.ticks.push_back(t); got = true; },
                  caf::after(std::chrono::seconds(5)) >> [] {});
    ASSERT_TRUE(got);
  }
  ASSERT_EQ(ev.lines.size(), 1u);
  EXPECT_EQ(ev.lines[0].text, "up");
  EXPECT_EQ(ev.lines[0].cut, msg::process_line_cut::whole);
  EXPECT_GE(ev.ticks[0].silent_for_ms, 30);
  self->send(proc, msg::terminate_process{reply.child, 100});
  drain();
  auto rest = collect_until_exit();
  ASSERT_EQ(rest.exits.size(), 1u);
  // The shell ignored SIGTERM (exec keeps the ignore): SIGKILL after the grace.
  EXPECT_EQ(rest.exits[0].end, msg::process_end::signaled);
  EXPECT_EQ(rest.exits[0].signal, SIGKILL);
  EXPECT_EQ(rest.exits[0].exit_code, 128 + SIGKILL);
}

TEST_F(process_actor_test, a_long_line_arrives_cut) {
  auto req = request_for("echo abcdefgh");
  req.line_cap = 3;
  spawn(req);
  auto ev = collect_until_exit();
  ASSERT_EQ(ev.lines.size(), 1u);
  EXPECT_EQ(ev.lines[0].text, "abc");
  EXPECT_EQ(ev.lines[0].cut, msg::process_line_cut::truncated);
  EXPECT_EQ(ev.lines[0].dropped_bytes, 5u);
}

TEST_F(process_actor_test, bad_requests_are_invalid) {
  caf::error err;
  msg::spawn_process empty;
  empty.cwd = dir.path().string();
  spawn(empty, &err);
  EXPECT_EQ(err, msg::errc::invalid_request);
  caf::error err2;
  auto req = request_for("true");
  req.env_additions = {"NOEQUALS"};
  spawn(req, &err2);
  EXPECT_EQ(err2, msg::errc::invalid_request);
}

TEST_F(process_actor_test, without_a_sender_events_go_to_the_default_subscriber) {
  process_actor_config pc;
  pc.default_subscriber = caf::actor_cast<msg::process_subscriber_actor>(self);
  auto other = sys.spawn(process_actor_impl, pc);
  drain();
  caf::anon_send(other, request_for("echo to-default"));
  drain();
  auto ev = collect_until_exit();
  ASSERT_EQ(ev.exits.size(), 1u);
  ASSERT_EQ(ev.lines.size(), 1u);
  EXPECT_EQ(ev.lines[0].text, "to-default");
  caf::anon_send_exit(other, caf::exit_reason::user_shutdown);
  drain();
}

TEST_F(process_actor_test, messages_round_trip_through_serialization) {
  msg::process_line line{42, msg::process_stream::err, std::string("a\0\xff|b", 5),
                         msg::process_line_cut::truncated, 9};
  msg::process_exit exit{42, 1234, msg::process_end::signaled, 137, 9, "why"};
  msg::spawn_process sp{{"codex", "exec"}, "/ws", {"A=1"}, "m", 7, 30000, 4096, "/bin/ad-keeper",
                        "/runs/a01", 250, "/nodes/n1/lease.7", 2000, {"sccache"}};
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  ASSERT_FALSE(sink(line, exit, sp));
  msg::process_line line2;
  msg::process_exit exit2;
  msg::spawn_process sp2;
  caf::binary_deserializer source{sys, buf};
  ASSERT_FALSE(source(line2, exit2, sp2));
  EXPECT_EQ(line2.text, line.text);
  EXPECT_EQ(line2.stream, line.stream);
  EXPECT_EQ(line2.cut, line.cut);
  EXPECT_EQ(line2.dropped_bytes, 9u);
  EXPECT_EQ(exit2.end, msg::process_end::signaled);
  EXPECT_EQ(exit2.reason, "why");
  EXPECT_EQ(sp2.argv, sp.argv);
  EXPECT_EQ(sp2.silence_interval_ms, 30000);
  EXPECT_EQ(sp2.flow_window, 4096u);
  EXPECT_EQ(sp2.keeper, "/bin/ad-keeper");
  EXPECT_EQ(sp2.keep_alive, std::vector<std::string>{"sccache"});
  EXPECT_EQ(sp2.attempt_dir, "/runs/a01");
  EXPECT_EQ(sp2.grace_ms, 250);
  EXPECT_EQ(sp2.lease_file, "/nodes/n1/lease.7");
  EXPECT_EQ(sp2.lease_ms, 2000);
  EXPECT_NE(caf::deep_to_string(line).find("process_line"), std::string::npos);
}

} // namespace
} // namespace ad::actors
