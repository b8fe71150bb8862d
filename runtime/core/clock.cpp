#include "runtime/core/clock.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace ad::runtime {

millis system_clock::now() const {
  using namespace std::chrono;
  return duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

namespace {
std::tm to_tm(millis t) {
  std::time_t secs = static_cast<std::time_t>(t >= 0 ? t / 1000 : (t - 999) / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return tm;
}
} // namespace

std::string format_utc_iso(millis t) {
  std::tm tm = to_tm(t);
  int ms = static_cast<int>(((t % 1000) + 1000) % 1000);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
  return buf;
}

std::string format_utc_stamp(millis t) {
  std::tm tm = to_tm(t);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

result<millis> parse_utc_iso(std::string_view text) {
  int y, mo, d, h, mi, s;
  int consumed = 0;
  std::string str(text);
  if (std::sscanf(str.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &consumed)
        != 6
      || consumed != 19)
    return status::invalid_argument("not an ISO-8601 time: '" + str + "'");
  std::string_view rest = text.substr(19);
  int ms = 0;
  if (!rest.empty() && rest[0] == '.') {
    size_t i = 1;
    int digits = 0;
    while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') {
      if (digits < 3) {
        ms = ms * 10 + (rest[i] - '0');
        ++digits;
      }
      ++i;
    }
    while (digits++ < 3)
      ms *= 10;
    rest.remove_prefix(i);
  }
  long offset_min = 0;
  if (rest == "Z" || rest == "z" || rest.empty()) {
  } else if ((rest[0] == '+' || rest[0] == '-') && rest.size() == 6 && rest[3] == ':') {
    int oh = (rest[1] - '0') * 10 + (rest[2] - '0');
    int om = (rest[4] - '0') * 10 + (rest[5] - '0');
    offset_min = (oh * 60 + om) * (rest[0] == '-' ? -1 : 1);
  } else {
    return status::invalid_argument("not an ISO-8601 time: '" + str + "'");
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  std::time_t secs = timegm(&tm);
  return (static_cast<millis>(secs) - offset_min * 60) * 1000 + ms;
}

} // namespace ad::runtime
