#pragma once
// One include for actor coroutines: task<T>, coroutine_host, request(),
// sleep_for(), event_queue<T> and next_event(). See each header for its
// contract. Typical shape of an actor using them:
//
//   struct my_state {
//     core::coroutine_host coro;
//     core::event_queue<line_event> lines;
//   };
//   behavior make(stateful_actor<my_state>* self) {
//     self->state.coro.bind(self);
//     auto body = run(self);            // a task<void> coroutine function
//     self->state.coro.start(std::move(body));
//     return {self->state.coro.wake_handler(),
//             [self](line_event& e) { self->state.lines.push(std::move(e)); }};
//   }
//
// Inside a coroutine, name every awaitable before awaiting it:
//   auto ask = core::request(self, server, 5s, x);
//   auto reply = co_await ask;          // caf::expected<R>
// Coroutine functions take their arguments by value (a reference or a
// lambda capture may dangle once the coroutine first suspends).

#include "actors/core/coroutine_host.hpp"
#include "actors/core/event_queue.hpp"
#include "actors/core/request.hpp"
#include "actors/core/task.hpp"
#include "actors/core/timer.hpp"
