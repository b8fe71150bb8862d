#pragma once
// What an agent's keeper decides while the agent runs, as a pure machine
// (the keeper's poll loop feeds it events and carries out what it returns):
// a stop request (SIGTERM to the keeper, or a lease that ran out) sends
// SIGTERM to every process of the attempt (the agent's process group and
// what left it) and, after the grace, SIGKILL to them; once the agent was
// reaped, what it left behind (processes it started that live on) gets
// SIGTERM and, after the cleanup grace, SIGKILL until none is left, so
// nothing an agent started outlives its attempt; its output is read until
// both pipes are at EOF or, when a process kept alive still holds a pipe,
// until the drain time is over. Also the lease rule. No I/O, no clock of
// its own (times are milliseconds of a monotonic clock given by the
// caller), no threads, never throws.

#include <cstdint>

#include "runtime/core/clock.hpp"
#include "runtime/keeper/keeper_records.hpp"

namespace ad::runtime {

enum class group_signal : uint8_t { none, terminate, kill }; // what to send the attempt's processes now
enum class leftover_presence : uint8_t { none, some };      // processes of the attempt after the agent's end

struct keeper_timing {
  int64_t grace_ms = 5000;        // between SIGTERM and SIGKILL of a stop
  int64_t drain_ms = 2000;        // reading on after the agent's end
  int64_t cleanup_grace_ms = 500; // what the agent left: between SIGTERM and SIGKILL
  int64_t cleanup_limit_ms = 3000; // then giving up on what does not die (uninterruptible sleep)
  int64_t cleanup_poll_ms = 20;   // how often what is left is looked at
};

class keeper_machine {
public:
  explicit keeper_machine(keeper_timing timing) : timing_(timing) {}

  // A stop request. The first one while the agent runs starts the
  // termination (returns terminate); later ones, and any after the agent
  // ended, change nothing (none).
  group_signal stop(keeper_initiator who, int64_t now);
  // The agent was reaped.
  void agent_ended(int64_t now);
  // Both pipes are closed (EOF, or closed by the drain).
  void output_closed() noexcept { output_closed_ = true; }
  // Time passed while the agent runs: returns kill once a stop's grace is
  // over.
  group_signal tick(int64_t now);
  // After the agent's end, until cleanup_done(): whether processes of the
  // attempt are left (those kept alive by name not counted). Returns
  // terminate at the first sight of some, kill once the cleanup grace is
  // over (again at every later look, for what they started meanwhile).
  group_signal leftovers(leftover_presence found, int64_t now);

  // Nothing of the attempt is left, or the cleanup gave up.
  bool cleanup_done() const noexcept { return cleanup_ == cleanup_state::done; }
  // Processes were still there at the cleanup's limit.
  bool cleanup_gave_up() const noexcept { return gave_up_; }
  // The agent ended and its pipes are still open past the drain time.
  bool drain_over(int64_t now) const noexcept;
  // Nothing left to do: the exit record can be written.
  bool finished() const noexcept;
  // The next time tick(), leftovers() or drain_over() may change, or -1.
  int64_t next_deadline() const noexcept;

  bool agent_has_ended() const noexcept { return ended_; }
  keeper_termination termination() const noexcept { return termination_; }

private:
  enum class cleanup_state : uint8_t { pending, terminating, killing, done };
  bool kill_pending() const noexcept;

  keeper_timing timing_;
  keeper_termination termination_;
  bool stopping_ = false;
  bool killed_ = false;
  bool ended_ = false;
  bool output_closed_ = false;
  bool gave_up_ = false;
  cleanup_state cleanup_ = cleanup_state::pending;
  int64_t kill_deadline_ = 0;
  int64_t drain_deadline_ = 0;
  int64_t cleanup_kill_at_ = 0;
  int64_t cleanup_give_up_at_ = 0;
  int64_t cleanup_next_look_ = 0;
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
