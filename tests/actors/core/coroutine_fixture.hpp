#pragma once
// Test-only: an actor system on CAF's deterministic test_coordinator, and a
// client actor that runs one coroutine body and feeds int events into an
// event queue. Observations go to a shared record that outlives the actor.

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "actors/core/coroutines.hpp"
#include "messages/types.hpp"

namespace ad::actors::core::testing {

using namespace std::chrono_literals;

using event_atom = caf::atom_constant<caf::atom("t_event")>;
using close_atom = caf::atom_constant<caf::atom("t_close")>;
using start_atom = caf::atom_constant<caf::atom("t_start")>;
using quit_atom = caf::atom_constant<caf::atom("t_quit")>;

// What the coroutines under test saw, in order.
struct record {
  std::vector<std::string> log;
  int destroyed = 0;  // guards whose frames were destroyed
  int finished = 0;   // bodies that reached their end
};
using record_ptr = std::shared_ptr<record>;

// Increments record::destroyed when the frame holding it is destroyed.
struct frame_guard {
  record_ptr rec;
  explicit frame_guard(record_ptr r) : rec(std::move(r)) {}
  frame_guard(const frame_guard&) = delete;
  ~frame_guard() { ++rec->destroyed; }
};

struct client_state {
  coroutine_host coro;
  event_queue<int> events;
};
using client_actor = caf::stateful_actor<client_state>;

// A coroutine body: a plain function taking everything by value.
using body_fn = task<void> (*)(client_actor*, record_ptr, caf::actor);

inline caf::behavior client(client_actor* self, body_fn body, int copies, record_ptr rec,
                            caf::actor peer) {
  self->state.coro.bind(self);
  for (int i = 0; i < copies; ++i) {
    auto t = body(self, rec, peer);
    self->state.coro.start(std::move(t));
  }
  return {
    self->state.coro.wake_handler(),
    [self](event_atom, int x) { self->state.events.push(x); },
    [self](close_atom) { self->state.events.close(); },
    [self](quit_atom) { self->quit(); },
  };
}

// A typed server: multiplies a positive int by its factor (2: "doubler"), answers not_found for 0, never
// answers a negative one (its promise is kept until the server exits).
using doubler = caf::typed_actor<caf::replies_to<int>::with<int>>;
struct doubler_state {
  std::vector<caf::response_promise> parked;
};
// CAF 0.17 dereferences a null argument tuple when a function actor is
// spawned without arguments (UBSan: reference binding to null pointer), so
// every test actor here takes at least one.
inline doubler::behavior_type doubler_impl(doubler::stateful_pointer<doubler_state> self,
                                           int factor) {
  return {
    [self, factor](int x) -> caf::result<int> {
      if (x == 0)
        return caf::make_error(messages::errc::not_found);
      if (x < 0) {
        self->state.parked.push_back(self->make_response_promise());
        return caf::delegated<int>{};
      }
      return factor * x;
    },
  };
}

class coroutine_test : public ::testing::Test {
protected:
  static caf::actor_system_config& configure(caf::actor_system_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.file-verbosity", caf::atom("quiet"));
    cfg.set("logger.console-verbosity", caf::atom("quiet"));
    messages::register_message_types(cfg);
    return cfg;
  }

  coroutine_test()
    : sys(configure(cfg)),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())) {
    sched.clock().current_time += std::chrono::hours(1);
  }

  ~coroutine_test() override { drain(); }

  // Runs every pending job without firing timers.
  void drain() {
    while (sched.try_run_once()) {
    }
  }
  // Moves virtual time forward, fires what is due, runs the jobs.
  void advance(caf::timespan d) {
    sched.clock().advance_time(d);
    drain();
  }

  caf::actor spawn_client(body_fn body, record_ptr rec, caf::actor peer = {}, int copies = 1) {
    auto h = sys.spawn(client, body, copies, rec, peer);
    drain();
    return h;
  }

  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
};

} // namespace ad::actors::core::testing
