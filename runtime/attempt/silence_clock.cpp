#include "runtime/attempt/silence_clock.hpp"

#include <algorithm>

namespace ad::runtime {

silence_clock::silence_clock(silence_settings settings, int64_t now_ms) : s_(settings) {
  s_.heartbeat_ms = std::max<int64_t>(1, s_.heartbeat_ms);
  s_.inspection_ms = std::max<int64_t>(1, s_.inspection_ms);
  s_.stall_limit_ms = std::max<int64_t>(0, s_.stall_limit_ms);
  on_output(now_ms);
}

void silence_clock::on_output(int64_t now_ms) {
  last_output_ = now_ms;
  last_beat_ = now_ms;
  inspect_at_ = now_ms + s_.inspection_ms;
  inspected_ = false;
}

int64_t silence_clock::next_deadline() const {
  int64_t due = last_beat_ + s_.heartbeat_ms;
  if (!inspected_)
    due = std::min(due, inspect_at_);
  if (s_.stall_limit_ms > 0 && !stalled_)
    due = std::min(due, last_output_ + s_.stall_limit_ms);
  return due;
}

silence_actions silence_clock::check(int64_t now_ms, tool_activity activity) {
  silence_actions out;
  out.silent_ms = now_ms - last_output_;
  if (s_.stall_limit_ms > 0 && !stalled_ && out.silent_ms >= s_.stall_limit_ms) {
    stalled_ = true;
    out.stall = true;
  }
  if (!inspected_ && now_ms >= inspect_at_) {
    if (activity == tool_activity::tool_running) {
      inspect_at_ = now_ms + s_.heartbeat_ms;
    } else {
      inspected_ = true;
      out.inspect = true;
    }
  }
  if (now_ms - last_beat_ >= s_.heartbeat_ms) {
    last_beat_ = now_ms;
    out.heartbeat = true;
  }
  return out;
}

} // namespace ad::runtime
