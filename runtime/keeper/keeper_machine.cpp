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

void keeper_machine::agent_ended(int64_t now) {
  if (ended_)
    return;
  ended_ = true;
  drain_deadline_ = now + timing_.drain_ms;
  cleanup_next_look_ = now;
}

bool keeper_machine::kill_pending() const noexcept { return stopping_ && !killed_ && !ended_; }

group_signal keeper_machine::tick(int64_t now) {
  if (!kill_pending() || now < kill_deadline_)
    return group_signal::none;
  killed_ = true;
  termination_.signal = SIGKILL;
  return group_signal::kill;
}

group_signal keeper_machine::leftovers(leftover_presence found, int64_t now) {
  if (!ended_ || cleanup_ == cleanup_state::done)
    return group_signal::none;
  if (found == leftover_presence::none) {
    cleanup_ = cleanup_state::done;
    return group_signal::none;
  }
  cleanup_next_look_ = now + timing_.cleanup_poll_ms;
  switch (cleanup_) {
    case cleanup_state::pending:
      cleanup_give_up_at_ = now + timing_.cleanup_limit_ms;
      if (killed_) {
        // A stop's grace is over already: no second grace.
        cleanup_ = cleanup_state::killing;
        return group_signal::kill;
      }
      cleanup_ = cleanup_state::terminating;
      cleanup_kill_at_ = now + timing_.cleanup_grace_ms;
      cleanup_next_look_ = std::min(cleanup_next_look_, cleanup_kill_at_);
      return group_signal::terminate;
    case cleanup_state::terminating:
      if (now < cleanup_kill_at_) {
        cleanup_next_look_ = std::min(cleanup_next_look_, cleanup_kill_at_);
        return group_signal::none;
      }
      cleanup_ = cleanup_state::killing;
      return group_signal::kill;
    case cleanup_state::killing:
      if (now >= cleanup_give_up_at_) {
        gave_up_ = true;
        cleanup_ = cleanup_state::done;
        return group_signal::none;
      }
      return group_signal::kill;
    case cleanup_state::done:
      break;
  }
  return group_signal::none;
}

bool keeper_machine::drain_over(int64_t now) const noexcept {
  return ended_ && !output_closed_ && now >= drain_deadline_;
}

bool keeper_machine::finished() const noexcept {
  return ended_ && output_closed_ && cleanup_ == cleanup_state::done;
}

int64_t keeper_machine::next_deadline() const noexcept {
  int64_t next = -1;
  auto consider = [&](int64_t t) { next = next < 0 ? t : std::min(next, t); };
  if (kill_pending())
    consider(kill_deadline_);
  if (ended_ && !output_closed_)
    consider(drain_deadline_);
  if (ended_ && cleanup_ != cleanup_state::done)
    consider(cleanup_next_look_);
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
