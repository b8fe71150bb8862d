#include "runtime/keeper/keeper_machine.hpp"

#include <algorithm>
#include <csignal>

namespace ad::runtime {

group_signal keeper_machine::stop(keeper_initiator who, int64_t now) {
  if (stopping_ || ended_)
    return group_signal::none;
  stopping_ = true;
  termination_ = {who, SIGTERM};
  kill_deadline_ = now + timing_.grace_ms;
  return group_signal::terminate;
}

void keeper_machine::agent_ended(group_presence rest, int64_t now) {
  if (ended_)
    return;
  ended_ = true;
  group_lingers_ = rest == group_presence::alive;
  drain_deadline_ = now + timing_.drain_ms;
  if (kill_pending())
    drain_deadline_ = std::max(drain_deadline_, kill_deadline_ + timing_.drain_ms);
}

bool keeper_machine::kill_pending() const noexcept {
  return stopping_ && !killed_ && (!ended_ || group_lingers_);
}

group_signal keeper_machine::tick(int64_t now) {
  if (!kill_pending() || now < kill_deadline_)
    return group_signal::none;
  killed_ = true;
  termination_.signal = SIGKILL;
  return group_signal::kill;
}

bool keeper_machine::drain_over(int64_t now) const noexcept {
  return ended_ && !output_closed_ && now >= drain_deadline_;
}

bool keeper_machine::finished() const noexcept {
  return ended_ && output_closed_ && !kill_pending();
}

int64_t keeper_machine::next_deadline() const noexcept {
  int64_t next = -1;
  auto consider = [&](int64_t t) { next = next < 0 ? t : std::min(next, t); };
  if (kill_pending())
    consider(kill_deadline_);
  if (ended_ && !output_closed_)
    consider(drain_deadline_);
  return next;
}

lease_state judge_lease(lease_file_presence file, millis modified, millis now, int64_t lease_ms) noexcept {
  if (file == lease_file_presence::missing)
    return lease_state::expired;
  return now - modified > lease_ms ? lease_state::expired : lease_state::held;
}

int64_t lease_check_interval_ms(int64_t lease_ms) noexcept {
  return std::max<int64_t>(1, std::min<int64_t>(1000, lease_ms / 4));
}

} // namespace ad::runtime
