#pragma once
// A coroutine timer: `auto nap = sleep_for(host, 30ms); co_await nap;`
// suspends until the host's wake message for that deadline arrives (an
// internal message to self, so the resumption happens on the actor and, on
// the deterministic test scheduler, when virtual time is advanced). Awaiting
// the same object again sleeps again for the same duration. Error contract:
// cannot fail; if the actor exits first the frame is destroyed, never
// resumed.

#include <chrono>
#include <coroutine>
#include <memory>

#include "actors/core/coroutine_host.hpp"

namespace ad::actors::core {

class sleep_awaitable {
public:
  sleep_awaitable(coroutine_host& host, caf::actor_clock::duration_type delay)
    : host_(&host), delay_(delay) {}
  sleep_awaitable(const sleep_awaitable&) = delete;
  sleep_awaitable& operator=(const sleep_awaitable&) = delete;
  ~sleep_awaitable() {
    if (slot_)
      slot_->waiter = {};
  }

  struct awaiter {
    sleep_awaitable* a;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      a->slot_ = std::make_shared<detail::wait_slot>();
      a->slot_->waiter = h;
      a->host_->arm(a->host_->now() + a->delay_, a->slot_);
    }
    void await_resume() const noexcept {}
  };
  awaiter operator co_await() & noexcept { return awaiter{this}; }
  awaiter operator co_await() && = delete;

private:
  coroutine_host* host_;
  caf::actor_clock::duration_type delay_;
  std::shared_ptr<detail::wait_slot> slot_;
};

template <class Rep, class Period>
sleep_awaitable sleep_for(coroutine_host& host, std::chrono::duration<Rep, Period> delay) {
  return {host, std::chrono::duration_cast<caf::actor_clock::duration_type>(delay)};
}

} // namespace ad::actors::core
