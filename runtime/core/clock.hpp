#pragma once
// Time as an injected effect. Domain code asks a clock for "now" instead of
// reading the system clock, so tests and trace replay can drive a virtual
// clock. Timestamps cross files and messages as milliseconds since the Unix
// epoch (UTC) and are shown as ISO-8601 UTC text. Never blocks or sleeps.

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

using millis = int64_t; // milliseconds since the Unix epoch, UTC

class clock {
public:
  virtual ~clock() = default;
  virtual millis now() const = 0;
};

// Reads the system clock.
class system_clock final : public clock {
public:
  millis now() const override;
};

// A clock tests and replay set by hand.
class manual_clock final : public clock {
public:
  explicit manual_clock(millis start = 0) : now_(start) {}
  millis now() const override { return now_; }
  void set(millis t) { now_ = t; }
  void advance(millis d) { now_ += d; }

private:
  millis now_;
};

// "2026-11-29T13:07:36.123Z"
std::string format_utc_iso(millis t);
// "20261129T130736Z", for folder names.
std::string format_utc_stamp(millis t);
// Parses the ISO-8601 forms written by format_utc_iso (with or without
// milliseconds, 'Z' or a +hh:mm offset); invalid_argument otherwise.
result<millis> parse_utc_iso(std::string_view text);

} // namespace ad::runtime
