// task<T>: child tasks with values, exceptions, many concurrent coroutines
// in one actor, frames of nested children destroyed on exit.

#include <stdexcept>

#include "tests/actors/core/coroutine_fixture.hpp"

namespace ad::actors::core::testing {
namespace {

task<int> doubled_by_server(client_actor* self, doubler server, int x, record_ptr rec) {
  frame_guard guard{rec};
  auto ask = request(self, server, 1s, x);
  auto reply = co_await ask;
  co_return reply ? *reply : -1;
}

task<int> sum_of_two(client_actor* self, doubler server, record_ptr rec) {
  auto a = doubled_by_server(self, server, 1, rec);
  int x = co_await a;
  auto b = doubled_by_server(self, server, 2, rec);
  int y = co_await b;
  co_return x + y;
}

task<void> nested(client_actor* self, record_ptr rec, caf::actor peer) {
  auto server = caf::actor_cast<doubler>(peer);
  auto sum = sum_of_two(self, server, rec);
  int total = co_await sum;
  rec->log.push_back("sum " + std::to_string(total));
  ++rec->finished;
}

TEST_F(coroutine_test, ChildTasksReturnValuesToTheirParent) {
  auto rec = std::make_shared<record>();
  auto server = caf::actor_cast<caf::actor>(sys.spawn(doubler_impl, 2));
  drain();
  auto c = spawn_client(nested, rec, server);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"sum 6"}));
  EXPECT_EQ(rec->destroyed, 2);
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

task<int> stuck_child(client_actor* self, doubler server, record_ptr rec) {
  frame_guard guard{rec};
  auto ask = request(self, server, 10s, -5);
  auto reply = co_await ask;
  co_return reply ? *reply : -1;
}

task<void> parent_of_stuck(client_actor* self, record_ptr rec, caf::actor peer) {
  frame_guard guard{rec};
  auto child = stuck_child(self, caf::actor_cast<doubler>(peer), rec);
  int x = co_await child;
  rec->log.push_back(std::to_string(x));
}

TEST_F(coroutine_test, QuittingDestroysParentAndSuspendedChildFrames) {
  auto rec = std::make_shared<record>();
  auto server = caf::actor_cast<caf::actor>(sys.spawn(doubler_impl, 2));
  drain();
  auto c = spawn_client(parent_of_stuck, rec, server);
  EXPECT_EQ(rec->destroyed, 0);
  caf::anon_send(c, quit_atom::value);
  drain();
  EXPECT_EQ(rec->destroyed, 2);
  EXPECT_TRUE(rec->log.empty());
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

task<int> throwing_child(client_actor* self) {
  auto pause = sleep_for(self->state.coro, 1ms);
  co_await pause;
  throw std::runtime_error("child broke");
}

task<void> catching_parent(client_actor* self, record_ptr rec, caf::actor) {
  auto child = throwing_child(self);
  try {
    co_await child;
    rec->log.push_back("no exception");
  } catch (const std::runtime_error& ex) {
    rec->log.push_back(std::string{"caught "} + ex.what());
  }
}

TEST_F(coroutine_test, AnExceptionInAChildReachesItsParent) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(catching_parent, rec);
  advance(1ms);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"caught child broke"}));
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
}

task<void> throwing_root(client_actor* self, record_ptr rec, caf::actor) {
  frame_guard guard{rec};
  auto pause = sleep_for(self->state.coro, 1ms);
  co_await pause;
  throw std::runtime_error("root broke");
}

struct watcher_state {
  std::string reason;
};
caf::behavior watcher(caf::stateful_actor<watcher_state>* self, caf::actor target,
                      record_ptr rec) {
  self->monitor(target);
  self->set_down_handler([self, rec](caf::down_msg& dm) {
    rec->log.push_back("down " + caf::to_string(dm.reason));
  });
  return {[](int) {}};
}

TEST_F(coroutine_test, AnExceptionEscapingARootTaskStopsTheActor) {
  auto rec = std::make_shared<record>();
  auto c = spawn_client(throwing_root, rec);
  auto w = sys.spawn(watcher, c, rec);
  drain();
  advance(1ms);
  ASSERT_EQ(rec->log.size(), 1u);
  EXPECT_NE(rec->log[0].find("runtime_error"), std::string::npos) << rec->log[0];
  EXPECT_NE(rec->log[0].find("root broke"), std::string::npos) << rec->log[0];
  EXPECT_EQ(rec->destroyed, 1);
  caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
}

task<void> mixed_worker(client_actor* self, record_ptr rec, caf::actor peer) {
  frame_guard guard{rec};
  int id = static_cast<int>(self->state.coro.active());
  auto server = caf::actor_cast<doubler>(peer);
  auto pause = sleep_for(self->state.coro, std::chrono::milliseconds(id % 7));
  co_await pause;
  auto ask = request(self, server, 1s, id);
  auto reply = co_await ask;
  auto next = next_event(self->state.events);
  auto ev = co_await next;
  if (reply && *reply == 2 * id && ev)
    ++rec->finished;
}

TEST_F(coroutine_test, ManyConcurrentCoroutinesInOneActor) {
  constexpr int n = 1000;
  auto rec = std::make_shared<record>();
  auto server = caf::actor_cast<caf::actor>(sys.spawn(doubler_impl, 2));
  drain();
  auto c = spawn_client(mixed_worker, rec, server, n);
  advance(10ms);
  EXPECT_EQ(rec->finished, 0);
  for (int i = 0; i < n; ++i)
    caf::anon_send(c, event_atom::value, i);
  drain();
  EXPECT_EQ(rec->finished, n);
  EXPECT_EQ(rec->destroyed, n);
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(server, caf::exit_reason::user_shutdown);
}

struct counting_state {
  coroutine_host coro;
  record_ptr rec;
};

task<void> count_active(caf::stateful_actor<counting_state>* self) {
  auto pause = sleep_for(self->state.coro, 5ms);
  co_await pause;
  self->state.rec->log.push_back("active " + std::to_string(self->state.coro.active()));
}

caf::behavior counting(caf::stateful_actor<counting_state>* self, record_ptr rec) {
  self->state.rec = rec;
  self->state.coro.bind(self);
  for (int i = 0; i < 3; ++i) {
    auto t = count_active(self);
    self->state.coro.start(std::move(t));
  }
  return {self->state.coro.wake_handler()};
}

TEST_F(coroutine_test, TheHostForgetsFramesThatEnded) {
  auto rec = std::make_shared<record>();
  auto c = sys.spawn(counting, rec);
  drain();
  advance(5ms);
  // Each coroutine sees itself and the ones that have not run yet.
  EXPECT_EQ(rec->log, (std::vector<std::string>{"active 3", "active 2", "active 1"}));
  caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
}

// A typed actor using the coroutine wake message in its interface.
using typed_sleeper = caf::typed_actor<caf::replies_to<int>::with<int>>::extend_with<coroutine_wake>;
struct typed_sleeper_state {
  coroutine_host coro;
  record_ptr rec;
};

task<void> typed_nap(typed_sleeper::stateful_pointer<typed_sleeper_state> self, int x) {
  auto pause = sleep_for(self->state.coro, 20ms);
  co_await pause;
  self->state.rec->log.push_back("typed " + std::to_string(x));
}

typed_sleeper::behavior_type typed_sleeper_impl(
  typed_sleeper::stateful_pointer<typed_sleeper_state> self, record_ptr rec) {
  self->state.rec = rec;
  self->state.coro.bind(self);
  return {
    [self](int x) {
      auto t = typed_nap(self, x);
      self->state.coro.start(std::move(t));
      return x;
    },
    self->state.coro.wake_handler(),
  };
}

TEST_F(coroutine_test, TypedActorsUseTimersThroughTheirInterface) {
  auto rec = std::make_shared<record>();
  auto s = sys.spawn(typed_sleeper_impl, rec);
  drain();
  caf::anon_send(s, 9);
  drain();
  EXPECT_TRUE(rec->log.empty());
  advance(20ms);
  EXPECT_EQ(rec->log, (std::vector<std::string>{"typed 9"}));
  caf::anon_send_exit(s, caf::exit_reason::user_shutdown);
}

} // namespace
} // namespace ad::actors::core::testing
