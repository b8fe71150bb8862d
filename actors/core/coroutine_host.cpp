#include "actors/core/coroutine_host.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <caf/make_message.hpp>

namespace ad::actors::core {

namespace detail {

void root_finished(coroutine_host* host, std::coroutine_handle<> frame) noexcept {
  host->finished(frame);
}

void root_failed(coroutine_host* host, std::exception_ptr error) noexcept {
  host->failed(std::move(error));
}

} // namespace detail

coroutine_host::~coroutine_host() {
  destroying_ = true;
  // Timers first: a frame's awaiters never call back into the host from their
  // destructors, but a slot must not outlive its resumer in a half-state.
  timers_.clear();
  timer_index_.clear();
  std::vector<void*> frames(frames_.begin(), frames_.end());
  frames_.clear();
  for (void* address : frames)
    std::coroutine_handle<>::from_address(address).destroy();
}

void coroutine_host::start(task<void> root) {
  auto h = root.release();
  if (!h)
    return;
  h.promise().host = this;
  frames_.insert(h.address());
  h.resume();
}

void coroutine_host::finished(std::coroutine_handle<> frame) noexcept {
  if (frames_.erase(frame.address()) > 0)
    frame.destroy();
}

void coroutine_host::failed(std::exception_ptr error) noexcept {
  std::string what = "exception escaped an actor coroutine";
  try {
    if (error)
      std::rethrow_exception(error);
  } catch (const std::exception& ex) {
    what += ": ";
    what += ex.what();
  } catch (...) {
  }
  if (fail_)
    fail_(caf::make_error(caf::sec::runtime_error, std::move(what)));
}

uint64_t coroutine_host::arm(clock_time due, std::shared_ptr<detail::wait_slot> slot) {
  auto id = next_id_++;
  auto pos = timers_.emplace(due, timer_entry{id, std::move(slot)});
  timer_index_.emplace(id, pos);
  reschedule();
  return id;
}

void coroutine_host::disarm(uint64_t id) noexcept {
  auto i = timer_index_.find(id);
  if (i == timer_index_.end())
    return;
  timers_.erase(i->second);
  timer_index_.erase(i);
  // The wake already scheduled stays; when it arrives it finds nothing due
  // and schedules the next deadline, so a loop re-arming a later deadline
  // costs one message per deadline, not one per iteration.
}

void coroutine_host::wake(uint64_t token) {
  scheduled_.erase(token);
  auto now = now_();
  while (!destroying_ && !timers_.empty() && timers_.begin()->first <= now) {
    auto first = timers_.begin();
    auto slot = std::move(first->second.slot);
    timer_index_.erase(first->second.id);
    timers_.erase(first);
    if (slot->waiter) {
      slot->timed_out = true;
      slot->resume();
    }
  }
  reschedule();
}

void coroutine_host::reschedule() {
  if (destroying_ || timers_.empty() || !schedule_)
    return;
  // At most max_wake_ahead ahead: a wake message holds its actor, and CAF
  // 0.17 cannot take one back from the clock, so an actor that exits with a
  // far deadline pending (an attempt's silence inspection) is freed within
  // that time instead of at the deadline. A longer wait costs one message
  // per hop.
  auto due = std::min(timers_.begin()->first, now_() + max_wake_ahead);
  for (auto& [token, at] : scheduled_)
    if (at <= due)
      return;  // a wake arrives in time for the earliest deadline
  auto token = next_id_++;
  scheduled_.emplace(token, due);
  schedule_(due, token);
}

} // namespace ad::actors::core
