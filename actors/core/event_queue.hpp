#pragma once
// event_queue<T>: hands events the actor receives (a process line, an exit,
// a phase change) to coroutines waiting for them. The actor's handler calls
// push(); the oldest waiting coroutine is resumed with the event right away,
// inside that handler, or the event is buffered in arrival order until a
// coroutine asks for it. `auto next = next_event(queue); auto ev = co_await
// next;` waits without limit; next_event(host, queue, timeout) also wakes up
// empty-handed when the timeout passes first. Waiters are served first in,
// first out. Owned by the actor's state and used on the actor only. Error
// contract: never throws; the result is a std::optional<T>, empty only when
// the timeout passed (or the queue was closed) before an event came.

#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <utility>

#include "actors/core/coroutine_host.hpp"

namespace ad::actors::core {

namespace detail {

template <class T>
struct event_slot : wait_slot {
  std::optional<T> event;
};

} // namespace detail

template <class T>
class event_queue {
public:
  event_queue() = default;
  event_queue(const event_queue&) = delete;
  event_queue& operator=(const event_queue&) = delete;

  // Delivers one event: resumes the oldest live waiter or buffers it.
  void push(T event) {
    if (closed_)
      return;
    while (!waiters_.empty()) {
      auto slot = std::move(waiters_.front());
      waiters_.pop_front();
      if (!slot->waiter)
        continue;  // timed out or destroyed meanwhile
      slot->event.emplace(std::move(event));
      slot->resume();
      return;
    }
    items_.push_back(std::move(event));
  }

  // No further events: waiting coroutines resume empty-handed, later pushes
  // are ignored; buffered events are still handed out.
  void close() {
    closed_ = true;
    auto waiters = std::move(waiters_);
    waiters_.clear();
    for (auto& slot : waiters)
      slot->resume();
  }

  bool closed() const noexcept { return closed_; }
  std::size_t buffered() const noexcept { return items_.size(); }
  std::size_t waiting() const noexcept {
    std::size_t n = 0;
    for (auto& slot : waiters_)
      n += slot->waiter ? 1 : 0;
    return n;
  }

  // -- used by next_awaitable -------------------------------------------------

  bool has_event() const noexcept { return !items_.empty(); }
  T pop() {
    T x = std::move(items_.front());
    items_.pop_front();
    return x;
  }
  void add_waiter(std::shared_ptr<detail::event_slot<T>> slot) {
    waiters_.push_back(std::move(slot));
  }

private:
  std::deque<T> items_;
  std::deque<std::shared_ptr<detail::event_slot<T>>> waiters_;
  bool closed_ = false;
};

template <class T>
class next_awaitable {
public:
  using duration = caf::actor_clock::duration_type;

  next_awaitable(event_queue<T>& queue, coroutine_host* host, std::optional<duration> timeout)
    : queue_(&queue), host_(host), timeout_(timeout) {}
  next_awaitable(const next_awaitable&) = delete;
  next_awaitable& operator=(const next_awaitable&) = delete;
  ~next_awaitable() {
    if (slot_)
      slot_->waiter = {};
  }

  struct awaiter {
    next_awaitable* a;
    bool await_ready() const noexcept {
      return a->queue_->has_event() || a->queue_->closed();
    }
    void await_suspend(std::coroutine_handle<> h) { a->suspend(h); }
    std::optional<T> await_resume() { return a->resume(); }
  };
  awaiter operator co_await() & noexcept { return awaiter{this}; }
  awaiter operator co_await() && = delete;

private:
  void suspend(std::coroutine_handle<> h) {
    slot_ = std::make_shared<detail::event_slot<T>>();
    slot_->waiter = h;
    queue_->add_waiter(slot_);
    if (timeout_ && host_ != nullptr)
      timer_ = host_->arm(host_->now() + *timeout_, slot_);
  }

  std::optional<T> resume() {
    if (!slot_) {  // did not suspend
      if (queue_->has_event())
        return queue_->pop();
      return std::nullopt;
    }
    auto slot = std::move(slot_);
    if (timer_ != 0 && !slot->timed_out)
      host_->disarm(timer_);
    timer_ = 0;
    return std::move(slot->event);
  }

  event_queue<T>* queue_;
  coroutine_host* host_;
  std::optional<duration> timeout_;
  std::shared_ptr<detail::event_slot<T>> slot_;
  uint64_t timer_ = 0;
};

// Waits for the next event without a time limit.
template <class T>
next_awaitable<T> next_event(event_queue<T>& queue) {
  return {queue, nullptr, std::nullopt};
}

// Waits for the next event at most `timeout`; empty result on timeout.
template <class T, class Rep, class Period>
next_awaitable<T> next_event(coroutine_host& host, event_queue<T>& queue,
                             std::chrono::duration<Rep, Period> timeout) {
  return {queue, &host,
          std::chrono::duration_cast<caf::actor_clock::duration_type>(timeout)};
}

} // namespace ad::actors::core
