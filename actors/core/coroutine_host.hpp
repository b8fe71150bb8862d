#pragma once
// coroutine_host: owns the root coroutine frames of one actor and its
// coroutine timers. It lives in the actor's state (so CAF destroys it, and
// with it every frame still suspended, when the actor exits: no frame leaks,
// no resumption after exit) and is bound once to its actor. Timers are one
// internal message to self, (wake_atom, token), scheduled at the earliest
// pending deadline, at most max_wake_ahead ahead (a pending wake keeps
// an exited actor's memory); the actor's behavior must route it to wake() (see
// wake_handler()), and a typed actor must list it in its interface (extend
// it with coroutine_wake). All members run on the owning actor only; never
// share a host between actors. Error contract: nothing here throws; an
// exception escaping a root task stops the actor with sec::runtime_error.

#include <caf/actor_cast.hpp>
#include <caf/actor_clock.hpp>
#include <caf/atom.hpp>
#include <caf/actor_system.hpp>
#include <caf/error.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/message_id.hpp>
#include <caf/sec.hpp>
#include <caf/typed_actor.hpp>

#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <unordered_set>

#include "actors/core/task.hpp"
#include "messages/coroutine.hpp"

namespace ad::actors::core {

// The self-message of coroutine timers (messages/coroutine.hpp); typed
// actors using timers extend their interface with coroutine_wake.
using wake_atom = messages::coro_wake_atom;
using coroutine_wake = messages::coroutine_wake_actor;

using clock_time = caf::actor_clock::time_point;

namespace detail {

// Shared between a suspended awaiter (in a frame) and whoever resumes it: a
// response handler, the host's timers, an event queue. `waiter` is empty once
// the frame was resumed or destroyed, so a late resumer does nothing.
struct wait_slot {
  virtual ~wait_slot() = default;
  std::coroutine_handle<> waiter;
  bool timed_out = false;
  // Takes the waiter and resumes it; no-op when there is none.
  void resume() {
    auto h = std::exchange(waiter, {});
    if (h)
      h.resume();
  }
};

} // namespace detail

class coroutine_host {
public:
  // How far ahead a wake message is scheduled at most (see reschedule()).
  static constexpr std::chrono::seconds max_wake_ahead{5};

  coroutine_host() = default;
  coroutine_host(const coroutine_host&) = delete;
  coroutine_host& operator=(const coroutine_host&) = delete;
  // Destroys every root frame still suspended (the actor is exiting).
  ~coroutine_host();

  // Binds the host to the actor that owns it. Call once, before start().
  template <class Self>
  void bind(Self* self) {
    // Straight to the clock: a typed actor may not send() to a dynamically
    // typed handle of itself, and its own handle type is not known here.
    schedule_ = [self](clock_time due, uint64_t token) {
      auto me = caf::actor_cast<caf::strong_actor_ptr>(self);
      auto content = caf::make_mailbox_element(me, caf::make_message_id(), {},
                                               wake_atom::value, token);
      self->system().clock().schedule_message(due, std::move(me), std::move(content));
    };
    now_ = [self] { return self->clock().now(); };
    fail_ = [self](caf::error err) { self->quit(std::move(err)); };
  }

  // Takes ownership of a root task and runs it until its first suspension.
  void start(task<void> root);

  // Root frames currently alive (suspended).
  std::size_t active() const noexcept { return frames_.size(); }
  // Timer entries waiting for their deadline.
  std::size_t pending_timers() const noexcept { return timers_.size(); }

  // Handler body for the (wake_atom, token) self-message: resumes every
  // waiter whose deadline has passed, then schedules the next wake.
  void wake(uint64_t token);

  // The behavior clause routing wake messages to this host.
  auto wake_handler() {
    return [this](wake_atom, uint64_t token) { wake(token); };
  }

  // -- used by awaitables -----------------------------------------------------

  clock_time now() const { return now_(); }
  // Resumes slot's waiter (with timed_out set) at `due` unless it was resumed
  // or destroyed before. Returns an id for disarm().
  uint64_t arm(clock_time due, std::shared_ptr<detail::wait_slot> slot);
  // Forgets a timer whose waiter was resumed by something else.
  void disarm(uint64_t id) noexcept;

  // -- used by task.hpp -------------------------------------------------------

  void finished(std::coroutine_handle<> frame) noexcept;
  void failed(std::exception_ptr error) noexcept;

private:
  struct timer_entry {
    uint64_t id;
    std::shared_ptr<detail::wait_slot> slot;
  };
  void reschedule();

  std::unordered_set<void*> frames_;  // coroutine_handle addresses
  std::multimap<clock_time, timer_entry> timers_;
  std::map<uint64_t, std::multimap<clock_time, timer_entry>::iterator> timer_index_;
  std::map<uint64_t, clock_time> scheduled_;  // wake token -> due of that message
  uint64_t next_id_ = 1;
  bool destroying_ = false;
  std::function<void(clock_time, uint64_t)> schedule_;
  std::function<clock_time()> now_;
  std::function<void(caf::error)> fail_;
};

} // namespace ad::actors::core
