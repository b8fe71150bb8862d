// sleep_for() and event_queue/next_event(): resumption on virtual time,
// deadline order, FIFO order of events and waiters, timeouts, frames
// destroyed when the actor quits while waiting.

#include "tests/actors/core/coroutine_fixture.hpp"

namespace ad::actors::core::testing {
namespace {

task<void> nap(client_actor* self, record_ptr rec, caf::actor) {
  frame_guard guard{rec};
  auto pause = sleep_for(self->state.coro, 100ms);
  co_await pause;
  rec->log.push_back("awake");
  ++rec->finished;
}

TEST_F(coroutine_test, SleepResumesWhenVirtualTimeReachesTheDeadline) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(nap, rec);
  EXPECT_TRUE(rec->log.empty());
  advance(99ms);
  EXPECT_TRUE(rec->log.empty());
  advance(1ms);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"awake"}));
  EXPECT_EQ(rec->destroyed, 1);
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
}

TEST_F(coroutine_test, ActorQuittingWhileAsleepDestroysTheFrame) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(nap, rec);
  caf::anon_send(c, quit_atom::value);
  drain();
  EXPECT_EQ(rec->destroyed, 1);
  advance(1s);  // the wake message reaches a dead actor
  EXPECT_TRUE(rec->log.empty());
}

task<void> long_nap(client_actor* self, record_ptr rec, caf::actor) {
  frame_guard guard{rec};
  auto pause = sleep_for(self->state.coro, 180s);
  co_await pause;
  rec->log.push_back("awake");
}

// A wake message holds its actor and the clock cannot take it back: an
// actor that exits with a far deadline pending (an attempt's silence
// inspection) is freed within max_wake_ahead, not at the deadline.
TEST_F(coroutine_test, AnActorQuittingWithAFarDeadlineIsFreedWithinOneWakeHop) {
  auto rec = std::make_shared<record>();
  caf::actor_addr addr;
  {
    auto c = spawn_client(long_nap, rec);
    addr = c.address();
    caf::anon_send(c, quit_atom::value);
  }
  drain();
  EXPECT_EQ(rec->destroyed, 1);
  EXPECT_EQ(sched.clock().schedule().size(), 1u) << "the wake message is pending";
  advance(coroutine_host::max_wake_ahead);
  EXPECT_TRUE(sched.clock().schedule().empty());
  EXPECT_FALSE(caf::actor_cast<caf::actor>(addr)) << "the exited actor is still held";
  EXPECT_TRUE(rec->log.empty());
}

// A deadline beyond the hop is still met: each hop finds nothing due and
// schedules the next, one message per hop.
TEST_F(coroutine_test, ADeadlineBeyondTheWakeHopIsMetHopByHop) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(long_nap, rec);
  auto hop = std::chrono::duration_cast<caf::timespan>(coroutine_host::max_wake_ahead);
  caf::timespan slept{0};
  while (slept + hop < caf::timespan{180s}) {
    advance(hop);
    slept += hop;
    EXPECT_EQ(sched.clock().schedule().size(), 1u) << "one wake pending, not one per hop";
    EXPECT_TRUE(rec->log.empty()) << "woke after " << slept.count() << " ns";
  }
  advance(caf::timespan{180s} - slept);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"awake"}));
  EXPECT_EQ(rec->destroyed, 1);
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
}

task<void> nap_by_index(client_actor* self, record_ptr rec, caf::actor) {
  // Copies started in order 0, 1, 2 sleep 30, 10, 20 ms.
  static const int delays[] = {30, 10, 20};
  int index = static_cast<int>(self->state.coro.active()) - 1;
  auto pause = sleep_for(self->state.coro, std::chrono::milliseconds(delays[index]));
  co_await pause;
  rec->log.push_back(std::to_string(delays[index]));
}

TEST_F(coroutine_test, TimersFireInDeadlineOrder) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(nap_by_index, rec, {}, 3);
  advance(10ms);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"10"}));
  advance(30ms);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"10", "20", "30"}));
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
}

task<void> collect_three(client_actor* self, record_ptr rec, caf::actor) {
  auto next = next_event(self->state.events);
  for (int i = 0; i < 3; ++i) {
    auto ev = co_await next;
    rec->log.push_back(ev ? std::to_string(*ev) : "none");
  }
  ++rec->finished;
}

TEST_F(coroutine_test, EventsArriveInOrderWhetherBufferedOrAwaited) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(collect_three, rec);
  caf::anon_send(c, event_atom::value, 1);
  drain();
  EXPECT_EQ(rec->log, (std::vector<std::string>{"1"}));
  caf::anon_send(c, event_atom::value, 2);
  caf::anon_send(c, event_atom::value, 3);
  drain();
  EXPECT_EQ(rec->log, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(rec->finished, 1);
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
}

task<void> wait_then_collect(client_actor* self, record_ptr rec, caf::actor) {
  // Events pushed while the coroutine sleeps are buffered for it.
  auto pause = sleep_for(self->state.coro, 50ms);
  co_await pause;
  auto next = next_event(self->state.events);
  for (int i = 0; i < 3; ++i) {
    auto ev = co_await next;
    rec->log.push_back(std::to_string(*ev));
  }
}

TEST_F(coroutine_test, EventsPushedWhileBusyAreBufferedInOrder) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(wait_then_collect, rec);
  for (int i = 1; i <= 3; ++i)
    caf::anon_send(c, event_atom::value, i);
  drain();
  EXPECT_TRUE(rec->log.empty());
  advance(50ms);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"1", "2", "3"}));
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
}

task<void> one_event(client_actor* self, record_ptr rec, caf::actor) {
  auto next = next_event(self->state.events);
  auto ev = co_await next;
  rec->log.push_back("got " + std::to_string(*ev));
}

TEST_F(coroutine_test, WaitersAreServedFirstInFirstOut) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(one_event, rec, {}, 3);
  for (int i = 1; i <= 3; ++i)
    caf::anon_send(c, event_atom::value, i);
  drain();
  EXPECT_EQ(rec->log, (std::vector<std::string>{"got 1", "got 2", "got 3"}));
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
}

task<void> event_or_timeout(client_actor* self, record_ptr rec, caf::actor) {
  frame_guard guard{rec};
  auto next = next_event(self->state.coro, self->state.events, 100ms);
  for (int i = 0; i < 3; ++i) {
    auto ev = co_await next;
    rec->log.push_back(ev ? std::to_string(*ev) : "silence");
  }
  ++rec->finished;
}

TEST_F(coroutine_test, NextEventWithTimeoutReturnsEmptyOnSilence) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(event_or_timeout, rec);
  advance(99ms);
  EXPECT_TRUE(rec->log.empty());
  advance(1ms);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"silence"}));
  // An event before the deadline wins and disarms the timer.
  advance(50ms);
  caf::anon_send(c, event_atom::value, 7);
  drain();
  EXPECT_EQ(rec->log, (std::vector<std::string>{"silence", "7"}));
  // The deadline restarts from the event.
  advance(99ms);
  EXPECT_EQ(rec->log.size(), 2u);
  advance(1ms);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"silence", "7", "silence"}));
  EXPECT_EQ(rec->finished, 1);
  EXPECT_EQ(rec->destroyed, 1);
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
}

task<void> silence_loop(client_actor* self, record_ptr rec, caf::actor) {
  auto next = next_event(self->state.coro, self->state.events, 30s);
  for (;;) {
    auto ev = co_await next;
    if (!ev)
      rec->log.push_back("heartbeat");
    else if (*ev < 0)
      break;
  }
  ++rec->finished;
}

TEST_F(coroutine_test, ABusyEventLoopKeepsOneTimerNotOnePerEvent) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(silence_loop, rec);
  for (int i = 0; i < 500; ++i) {
    caf::anon_send(c, event_atom::value, i);
    drain();
    advance(1ms);
  }
  // One wake message pending in the clock, not 500.
  EXPECT_LE(sched.clock().schedule().size(), 2u);
  EXPECT_TRUE(rec->log.empty());
  advance(30s);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"heartbeat"}));
  caf::anon_send(c, event_atom::value, -1);
  drain();
  EXPECT_EQ(rec->finished, 1);
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
}

TEST_F(coroutine_test, ClosingTheQueueWakesWaitersEmptyHanded) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(collect_three, rec);
  caf::anon_send(c, event_atom::value, 4);
  caf::anon_send(c, close_atom::value);
  caf::anon_send(c, event_atom::value, 5);  // ignored after close
  drain();
  EXPECT_EQ(rec->log, (std::vector<std::string>{"4", "none", "none"}));
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
}

TEST_F(coroutine_test, ActorQuittingWhileWaitingForAnEventDestroysTheFrame) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(event_or_timeout, rec, {}, 4);
  caf::anon_send(c, quit_atom::value);
  drain();
  EXPECT_EQ(rec->destroyed, 4);
  EXPECT_EQ(rec->finished, 0);
  advance(1s);
}

} // namespace
} // namespace ad::actors::core::testing
