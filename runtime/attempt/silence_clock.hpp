#pragma once
// silence_clock: when an attempt's silence (no output line) deserves a
// heartbeat (every heartbeat_ms of silence), the one-time silence
// inspection (after inspection_ms; while a pi tool call runs it is
// postponed by one heartbeat interval at a time), or the stall limit
// (stall_limit_ms, 0 = off; reported once). Pure arithmetic over
// millisecond time stamps given by the caller, so the attempt actor can
// feed it virtual or real time; output resets everything, so each silence
// may be inspected once. Never throws; not shared between threads.

#include <cstdint>

namespace ad::runtime {

struct silence_settings {
  int64_t heartbeat_ms = 30'000;
  int64_t inspection_ms = 180'000;
  int64_t stall_limit_ms = 0;
};

enum class tool_activity : uint8_t { idle, tool_running };

struct silence_actions {
  bool stall = false;
  bool inspect = false;
  bool heartbeat = false;
  int64_t silent_ms = 0;
};

class silence_clock {
public:
  silence_clock(silence_settings settings, int64_t now_ms);

  void on_output(int64_t now_ms);
  // The next time check() has something to report.
  int64_t next_deadline() const;
  // What is due at now_ms; each returned action is recorded as done.
  silence_actions check(int64_t now_ms, tool_activity activity);

private:
  silence_settings s_;
  int64_t last_output_;
  int64_t last_beat_;
  int64_t inspect_at_;
  bool inspected_ = false;
  bool stalled_ = false;
};

} // namespace ad::runtime
