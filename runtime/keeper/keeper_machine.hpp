#pragma once
// What an agent's keeper decides while the agent runs, as a pure machine
// (the keeper's poll loop feeds it events and carries out what it returns):
// a stop request (SIGTERM to the keeper, or a lease that ran out) sends
// SIGTERM to the agent's process group and, after the grace, SIGKILL to it;
// once the agent was reaped, its output is read until both pipes are at
// EOF or, when a process outside the group still holds a pipe, until the
// drain time is over; a group that lingers after a stop request still gets
// its SIGKILL. Also the lease rule. No I/O, no clock of its own (times are
// milliseconds of a monotonic clock given by the caller), no threads, never
// throws.

#include <cstdint>

#include "runtime/core/clock.hpp"
#include "runtime/keeper/keeper_records.hpp"

namespace ad::runtime {

enum class group_signal : uint8_t { none, terminate, kill }; // what to send the group now
enum class group_presence : uint8_t { alive, gone };

struct keeper_timing {
  int64_t grace_ms = 5000; // between SIGTERM and SIGKILL
  int64_t drain_ms = 2000; // reading on after the agent's end
};

class keeper_machine {
public:
  explicit keeper_machine(keeper_timing timing) : timing_(timing) {}

  // A stop request. The first one while the agent runs starts the
  // termination (returns terminate); later ones, and any after the agent
  // ended, change nothing (none).
  group_signal stop(keeper_initiator who, int64_t now);
  // The agent was reaped; rest: whether other members of its group live on.
  void agent_ended(group_presence rest, int64_t now);
  // Both pipes are closed (EOF, or closed by the drain).
  void output_closed() noexcept { output_closed_ = true; }
  // Time passed: returns kill once the grace after a stop is over.
  group_signal tick(int64_t now);

  // The agent ended and its pipes are still open past the drain time.
  bool drain_over(int64_t now) const noexcept;
  // Nothing left to do: the exit record can be written.
  bool finished() const noexcept;
  // The next time tick() or drain_over() may change, or -1.
  int64_t next_deadline() const noexcept;

  bool agent_has_ended() const noexcept { return ended_; }
  keeper_termination termination() const noexcept { return termination_; }

private:
  bool kill_pending() const noexcept;

  keeper_timing timing_;
  keeper_termination termination_;
  bool stopping_ = false;
  bool killed_ = false;
  bool ended_ = false;
  bool group_lingers_ = false;
  bool output_closed_ = false;
  int64_t kill_deadline_ = 0;
  int64_t drain_deadline_ = 0;
};

// --- the lease (--lease-file, --lease-ms) ------------------------------------

enum class lease_state : uint8_t { held, expired };

enum class lease_file_presence : uint8_t { present, missing };

// Held while the lease file exists and was modified at most lease_ms before
// now (both wall-clock milliseconds; a modification time in the future
// holds).
lease_state judge_lease(lease_file_presence file, millis modified, millis now, int64_t lease_ms) noexcept;

// How often the lease is checked: every min(1 s, lease_ms / 4), at least
// every millisecond.
int64_t lease_check_interval_ms(int64_t lease_ms) noexcept;

} // namespace ad::runtime
