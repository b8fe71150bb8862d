#include "actors/attempt/pi_watcher.hpp"

#include <chrono>

#include "runtime/attempt/pi_watch.hpp"

namespace ad::actors {

namespace {

using self_ptr = messages::pi_watcher_actor::stateful_pointer<pi_watcher_state>;

messages::pi_phase_report to_report(const runtime::pi_session_reading& r) {
  messages::pi_phase_report out;
  out.session_file = r.file.string();
  out.phase = std::string{runtime::to_string(r.state.phase)};
  out.reason = r.state.reason;
  out.expected_tool_call_ids = r.state.expected_tool_call_ids;
  out.completed_tool_call_ids = r.state.completed_tool_call_ids;
  out.pending_tool_call_ids = r.state.pending_tool_call_ids;
  return out;
}

core::task<void> poll(self_ptr self) {
  auto period = std::chrono::milliseconds(std::max<int64_t>(1, self->state.target.poll_ms));
  auto pause = core::sleep_for(self->state.coro, period);
  auto me = caf::actor_cast<messages::pi_watcher_actor>(self);
  for (;;) {
    auto& t = self->state.target;
    auto reading = runtime::read_pi_target(t.session_file, t.session_dir, t.session_id);
    if (!reading.file.empty())
      t.session_file = reading.file.string();  // found: stop listing the folder
    self->send(me, messages::pi_session_observed{to_report(reading)});
    co_await pause;
  }
}

} // namespace

messages::pi_watcher_actor::behavior_type pi_watcher_impl(
  self_ptr self, messages::pi_phase_subscriber_actor subscriber, messages::pi_watch_target target) {
  self->state.subscriber = std::move(subscriber);
  self->state.target = std::move(target);
  self->state.coro.bind(self);
  auto body = poll(self);
  self->state.coro.start(std::move(body));
  return {
    [self](messages::pi_session_observed& obs) {
      auto& st = self->state;
      ++st.observations;
      if (st.reported && obs.reading == st.last)
        return;
      st.reported = true;
      st.last = obs.reading;
      self->send(st.subscriber, messages::pi_phase_changed{st.last});
    },
    self->state.coro.wake_handler(),
  };
}

} // namespace ad::actors
