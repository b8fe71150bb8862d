#include "runtime/agents/reset_time.hpp"

#include <cctype>
#include <cmath>
#include <string>

#include "runtime/core/numbers.hpp"
#include "runtime/core/user_regex.hpp"

namespace ad::runtime {

namespace {

// The text is an agent's: it is matched on RE2 (linear in the text, no
// recursion), case-insensitively.
using groups = std::vector<std::optional<std::string_view>>;

std::string text_of(const std::optional<std::string_view>& g) {
  return g ? std::string(*g) : std::string();
}

constexpr size_t max_scan = 16 * 1024;

// Epoch numbers below this are seconds, above it milliseconds.
constexpr double millis_threshold = 1e11;

std::optional<double> to_number(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(v) || v < 0)
    return std::nullopt;
  return v;
}

// nullopt past int64_t milliseconds: no reset time that far out is meant.
std::optional<millis> epoch_to_millis(double v) {
  return to_int64(v < millis_threshold ? v * 1000.0 : v);
}

// Milliseconds per unit word; seconds when the unit is empty.
std::optional<double> unit_millis(std::string unit) {
  for (char& c : unit)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (unit.empty() || unit == "s" || unit == "sec" || unit == "secs" || unit == "second"
      || unit == "seconds")
    return 1000.0;
  if (unit == "ms" || unit == "millisecond" || unit == "milliseconds")
    return 1.0;
  if (unit == "m" || unit == "min" || unit == "mins" || unit == "minute" || unit == "minutes")
    return 60'000.0;
  if (unit == "h" || unit == "hr" || unit == "hrs" || unit == "hour" || unit == "hours")
    return 3'600'000.0;
  if (unit == "d" || unit == "day" || unit == "days")
    return 86'400'000.0;
  return std::nullopt;
}

std::optional<millis> absolute_json_field(std::string_view text) {
  static const user_regex number_re =
    fixed_regex(R"re("?(?:resetsAt|resets_at|reset_at)"?\s*[:=]\s*(\d+(?:\.\d+)?))re");
  static const user_regex iso_re = fixed_regex(
    R"re("?(?:resetsAt|resets_at|reset_at)"?\s*[:=]\s*"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?)")re");
  if (groups m = number_re.match(text); !m.empty())
    if (auto v = to_number(text_of(m[1])))
      if (auto at = epoch_to_millis(*v))
        return at;
  if (groups m = iso_re.match(text); !m.empty())
    if (auto t = parse_utc_iso(text_of(m[1])))
      return *t;
  return std::nullopt;
}

std::optional<millis> claude_limit_pipe(std::string_view text) {
  static const user_regex re = fixed_regex(R"(limit reached\|(\d{9,13}))");
  if (groups m = re.match(text); !m.empty())
    if (auto v = to_number(text_of(m[1])))
      return epoch_to_millis(*v);
  return std::nullopt;
}

std::optional<millis> iso_after_reset_words(std::string_view text) {
  static const user_regex re = fixed_regex(
    R"((?:resets?|try again|retry)(?: at| after| on)?\s*:?\s*(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?))");
  groups m = re.match(text);
  if (m.empty())
    return std::nullopt;
  std::string iso = text_of(m[1]);
  if (iso.size() > 10 && iso[10] == ' ')
    iso[10] = 'T';
  if (auto t = parse_utc_iso(iso))
    return *t;
  return std::nullopt;
}

std::optional<millis> single_relative(std::string_view text, millis observed_at) {
  static const user_regex retry_after_re = fixed_regex(
    R"(retry[-_ ]after["']?\s*[:=]?\s*["']?(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)?\b)");
  static const user_regex retry_in_re = fixed_regex(
    R"(retry in\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)\b)");
  static const user_regex retry_delay_re =
    fixed_regex(R"re("?retryDelay"?\s*[:=]\s*"(\d+(?:\.\d+)?)s")re");
  for (const user_regex* re : {&retry_after_re, &retry_in_re, &retry_delay_re}) {
    groups m = re->match(text);
    if (m.empty())
      continue;
    auto v = to_number(text_of(m[1]));
    auto unit = unit_millis(m.size() > 2 ? text_of(m[2]) : std::string());
    if (v && unit)
      return observed_at + whole_ms(*v * *unit);
  }
  return std::nullopt;
}

// "try again in 2 days 3 hours 5 minutes", "try again in 1h 30m".
std::optional<millis> try_again_in(std::string_view text, millis observed_at) {
  static const user_regex head_re = fixed_regex(R"(try again in\s+)");
  static const user_regex part_re = fixed_regex(
    R"(\s*(?:,|and)?\s*(\d+(?:\.\d+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b)");
  groups head = head_re.match(text);
  if (head.empty())
    return std::nullopt;
  std::size_t at = static_cast<std::size_t>(head[0]->data() - text.data()) + head[0]->size();
  double total = 0;
  bool any = false;
  for (;;) {
    groups part = part_re.match(text, at, user_regex::anchor::at_start);
    if (part.empty())
      break;
    auto v = to_number(text_of(part[1]));
    auto unit = unit_millis(text_of(part[2]));
    if (!v || !unit)
      break;
    total += *v * *unit;
    any = true;
    at = static_cast<std::size_t>(part[0]->data() - text.data()) + part[0]->size();
  }
  if (!any)
    return std::nullopt;
  return observed_at + whole_ms(total);
}

// Days since 1970-01-01 of a proleptic Gregorian date.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

int month_number(std::string name) {
  static const char* names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                "jul", "aug", "sep", "oct", "nov", "dec"};
  for (char& c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int i = 0; i < 12; ++i)
    if (name.rfind(names[i], 0) == 0)
      return i + 1;
  return 0;
}

// "try again at 6:33 PM", "try again at Dec 4th, 2026 6:33 PM",
// "resets 6:06pm (UTC)", "resets 7pm": a local clock time.
std::optional<millis> local_clock_time(std::string_view text, millis observed_at,
                                       int32_t utc_offset_s) {
  static const user_regex re = fixed_regex(
    R"((?:try again at|resets?(?: at)?)\s+)"
    R"((?:([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?:,|\s+at)?\s+)?)"
    R"((\d{1,2})(?::(\d{2}))?\s*([ap])?\.?\s*(m\b\.?)?)"
    R"((?:\s*\(([^)]{1,40})\))?)");
  groups m = re.match(text);
  if (m.empty())
    return std::nullopt;
  bool has_minutes = m[5].has_value();
  bool has_meridiem = m[6].has_value() && m[7].has_value();
  if (!has_minutes && !has_meridiem)
    return std::nullopt; // a bare number is not a clock time
  int hour = std::stoi(text_of(m[4]));
  int minute = has_minutes ? std::stoi(text_of(m[5])) : 0;
  if (minute > 59)
    return std::nullopt;
  if (has_meridiem) {
    if (hour < 1 || hour > 12)
      return std::nullopt;
    bool pm = std::tolower(static_cast<unsigned char>(text_of(m[6])[0])) == 'p';
    hour = hour % 12 + (pm ? 12 : 0);
  } else if (hour > 23) {
    return std::nullopt;
  }
  int64_t offset_ms = static_cast<int64_t>(utc_offset_s) * 1000;
  if (m[8].has_value()) {
    std::string zone = text_of(m[8]);
    for (char& c : zone)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (zone == "UTC" || zone == "GMT" || zone == "Z")
      offset_ms = 0;
  }
  constexpr int64_t day_ms = 86'400'000;
  int64_t clock_ms = (static_cast<int64_t>(hour) * 60 + minute) * 60'000;
  if (m[1].has_value()) {
    int month = month_number(text_of(m[1]));
    int day = std::stoi(text_of(m[2]));
    if (month == 0 || day < 1 || day > 31)
      return std::nullopt;
    int64_t days = days_from_civil(std::stoi(text_of(m[3])), static_cast<unsigned>(month),
                                   static_cast<unsigned>(day));
    return days * day_ms + clock_ms - offset_ms;
  }
  // The next such time of day after observed_at, in local time.
  int64_t local_now = observed_at + offset_ms;
  int64_t local_day = local_now >= 0 ? local_now / day_ms : (local_now - day_ms + 1) / day_ms;
  int64_t candidate = local_day * day_ms + clock_ms;
  if (candidate <= local_now)
    candidate += day_ms;
  return candidate - offset_ms;
}

} // namespace

std::optional<millis> extract_reset_at(std::string_view text, millis observed_at,
                                       int32_t utc_offset_s) {
  std::string_view scan = text.substr(0, max_scan);
  if (auto t = absolute_json_field(scan))
    return t;
  if (auto t = claude_limit_pipe(scan))
    return t;
  if (auto t = iso_after_reset_words(scan))
    return t;
  if (auto t = local_clock_time(scan, observed_at, utc_offset_s))
    return t;
  if (auto t = single_relative(scan, observed_at))
    return t;
  if (auto t = try_again_in(scan, observed_at))
    return t;
  return std::nullopt;
}

} // namespace ad::runtime
