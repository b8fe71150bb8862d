#include "runtime/agents/reset_time.hpp"

#include <cctype>
#include <cmath>
#include <regex>
#include <string>

#include "runtime/core/numbers.hpp"

namespace ad::runtime {

namespace {

constexpr auto flags = std::regex::ECMAScript | std::regex::icase;
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

std::optional<millis> absolute_json_field(const std::string& text) {
  static const std::regex number_re(R"re("?(?:resetsAt|resets_at|reset_at)"?\s*[:=]\s*(\d+(?:\.\d+)?))re",
                                    flags);
  static const std::regex iso_re(
    R"re("?(?:resetsAt|resets_at|reset_at)"?\s*[:=]\s*"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?)")re",
    flags);
  std::smatch m;
  if (std::regex_search(text, m, number_re))
    if (auto v = to_number(m[1].str()))
      if (auto at = epoch_to_millis(*v))
        return at;
  if (std::regex_search(text, m, iso_re))
    if (auto t = parse_utc_iso(m[1].str()))
      return *t;
  return std::nullopt;
}

std::optional<millis> claude_limit_pipe(const std::string& text) {
  static const std::regex re(R"(limit reached\|(\d{9,13}))", flags);
  std::smatch m;
  if (std::regex_search(text, m, re))
    if (auto v = to_number(m[1].str()))
      return epoch_to_millis(*v);
  return std::nullopt;
}

std::optional<millis> iso_after_reset_words(const std::string& text) {
  static const std::regex re(
    R"((?:resets?|try again|retry)(?: at| after| on)?\s*:?\s*(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?))",
    flags);
  std::smatch m;
  if (!std::regex_search(text, m, re))
    return std::nullopt;
  std::string iso = m[1].str();
  if (iso.size() > 10 && iso[10] == ' ')
    iso[10] = 'T';
  if (auto t = parse_utc_iso(iso))
    return *t;
  return std::nullopt;
}

std::optional<millis> single_relative(const std::string& text, millis observed_at) {
  static const std::regex retry_after_re(
    R"(retry[-_ ]after["']?\s*[:=]?\s*["']?(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)?\b)",
    flags);
  static const std::regex retry_in_re(
    R"(retry in\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)\b)",
    flags);
  static const std::regex retry_delay_re(R"re("?retryDelay"?\s*[:=]\s*"(\d+(?:\.\d+)?)s")re",
                                         flags);
  std::smatch m;
  for (const std::regex* re : {&retry_after_re, &retry_in_re, &retry_delay_re}) {
    if (!std::regex_search(text, m, *re))
      continue;
    auto v = to_number(m[1].str());
    auto unit = unit_millis(m.size() > 2 ? m[2].str() : std::string());
    if (v && unit)
      return observed_at + whole_ms(*v * *unit);
  }
  return std::nullopt;
}

// "try again in 2 days 3 hours 5 minutes", "try again in 1h 30m".
std::optional<millis> try_again_in(const std::string& text, millis observed_at) {
  static const std::regex head_re(R"(try again in\s+)", flags);
  static const std::regex part_re(
    R"(^\s*(?:,|and)?\s*(\d+(?:\.\d+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b)",
    flags);
  std::smatch head;
  if (!std::regex_search(text, head, head_re))
    return std::nullopt;
  auto it = head.suffix().first;
  auto end = text.cend();
  double total = 0;
  bool any = false;
  std::smatch part;
  while (std::regex_search(it, end, part, part_re)) {
    auto v = to_number(part[1].str());
    auto unit = unit_millis(part[2].str());
    if (!v || !unit)
      break;
    total += *v * *unit;
    any = true;
    it = part.suffix().first;
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
std::optional<millis> local_clock_time(const std::string& text, millis observed_at,
                                       int32_t utc_offset_s) {
  static const std::regex re(
    R"((?:try again at|resets?(?: at)?)\s+)"
    R"((?:([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?:,|\s+at)?\s+)?)"
    R"((\d{1,2})(?::(\d{2}))?\s*([ap])?\.?\s*(m\b\.?)?)"
    R"((?:\s*\(([^)]{1,40})\))?)",
    flags);
  std::smatch m;
  if (!std::regex_search(text, m, re))
    return std::nullopt;
  bool has_minutes = m[5].matched;
  bool has_meridiem = m[6].matched && m[7].matched;
  if (!has_minutes && !has_meridiem)
    return std::nullopt; // a bare number is not a clock time
  int hour = std::stoi(m[4].str());
  int minute = has_minutes ? std::stoi(m[5].str()) : 0;
  if (minute > 59)
    return std::nullopt;
  if (has_meridiem) {
    if (hour < 1 || hour > 12)
      return std::nullopt;
    bool pm = std::tolower(static_cast<unsigned char>(m[6].str()[0])) == 'p';
    hour = hour % 12 + (pm ? 12 : 0);
  } else if (hour > 23) {
    return std::nullopt;
  }
  int64_t offset_ms = static_cast<int64_t>(utc_offset_s) * 1000;
  if (m[8].matched) {
    std::string zone = m[8].str();
    for (char& c : zone)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (zone == "UTC" || zone == "GMT" || zone == "Z")
      offset_ms = 0;
  }
  constexpr int64_t day_ms = 86'400'000;
  int64_t clock_ms = (static_cast<int64_t>(hour) * 60 + minute) * 60'000;
  if (m[1].matched) {
    int month = month_number(m[1].str());
    int day = std::stoi(m[2].str());
    if (month == 0 || day < 1 || day > 31)
      return std::nullopt;
    int64_t days = days_from_civil(std::stoi(m[3].str()), static_cast<unsigned>(month),
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
  std::string scan(text.substr(0, max_scan));
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
