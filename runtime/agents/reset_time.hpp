#pragma once
// Reading, from one quota diagnostic, when the provider says the limit lifts,
// so the supervisor can wait until then instead of backing off blindly.
// Understood forms (case-insensitive): claude's rate_limit_event
// `"resetsAt": <epoch seconds>` (also resets_at / reset_at, seconds or
// milliseconds, or an ISO string), the older claude text
// `limit reached|<epoch seconds>`, "resets at <ISO time>" / "try again at
// <ISO time>", "Retry-After: N", "retry after N s", "retry in 23.5s" (Gemini
// and agy), `"retryDelay": "23s"` (Google RPC), and codex's "try again in
// 2 days 3 hours 5 minutes" / "try again in 1h 30m", and clock times written
// for a person: codex's "try again at 6:33 PM." (the next 18:33 local time)
// and "try again at Dec 4th, 2026 6:33 PM", claude's "resets 6:06pm (UTC)"
// or "resets 7pm". A clock time is read in the agent's time zone, given as
// its UTC offset at observed_at (utc_offset_s, east of UTC), unless the text
// names UTC/GMT itself. Relative forms count from observed_at. Pure: no
// clock reads, no I/O, never throws.

#include <cstdint>
#include <optional>
#include <string_view>

#include "runtime/core/clock.hpp"

namespace ad::runtime {

// The reset time named in text, in milliseconds since the epoch, if any.
std::optional<millis> extract_reset_at(std::string_view text, millis observed_at,
                                       int32_t utc_offset_s = 0);

} // namespace ad::runtime
