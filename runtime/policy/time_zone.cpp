#include "runtime/policy/time_zone.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>

#include "runtime/core/files.hpp"

namespace ad::runtime {

namespace {

namespace chr = std::chrono;

int64_t days_from_civil(int y, int m, int d) {
  return chr::sys_days{chr::year{y} / chr::month{static_cast<unsigned>(m)} /
                       chr::day{static_cast<unsigned>(d)}}
    .time_since_epoch()
    .count();
}

bool is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {
  static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

// Unix second of the local midnight-relative change in year y, as local seconds
// since the epoch (offset not yet applied).
int64_t change_local_seconds(const posix_tz_rule::change& c, int y) {
  int64_t day = 0;
  switch (c.kind) {
    case posix_tz_rule::date_kind::julian_no_leap: {
      // Jn: 1..365, February 29 never counted.
      int n = c.day;
      day = days_from_civil(y, 1, 1) + n - 1;
      if (is_leap(y) && n >= 60)
        day += 1;
      break;
    }
    case posix_tz_rule::date_kind::julian_zero:
      day = days_from_civil(y, 1, 1) + c.day;
      break;
    case posix_tz_rule::date_kind::month_week_day: {
      int64_t first = days_from_civil(y, c.month, 1);
      int first_wd = static_cast<int>(((first % 7) + 11) % 7); // 1970-01-01 was Thursday (4)
      int d = 1 + ((c.weekday - first_wd + 7) % 7) + (c.week - 1) * 7;
      if (c.week == 5) {
        while (d > days_in_month(y, c.month))
          d -= 7;
      }
      day = first + d - 1;
      break;
    }
  }
  return day * 86400 + c.time_s;
}

class tz_parser {
public:
  explicit tz_parser(std::string_view s) : s_(s) {}
  bool done() const { return i_ >= s_.size(); }
  char peek() const { return done() ? '\0' : s_[i_]; }
  bool eat(char c) {
    if (peek() != c)
      return false;
    ++i_;
    return true;
  }
  bool name() {
    if (eat('<')) {
      size_t start = i_;
      while (!done() && peek() != '>')
        ++i_;
      if (!eat('>') || i_ - start < 2)
        return false;
      return true;
    }
    size_t start = i_;
    while (!done() && std::isalpha(static_cast<unsigned char>(peek())))
      ++i_;
    return i_ - start >= 3;
  }
  bool number(int& out, int max_digits) {
    size_t start = i_;
    out = 0;
    while (!done() && std::isdigit(static_cast<unsigned char>(peek())) &&
           i_ - start < static_cast<size_t>(max_digits)) {
      out = out * 10 + (peek() - '0');
      ++i_;
    }
    return i_ > start;
  }
  // [+-]hh[:mm[:ss]] in seconds.
  bool hms(int32_t& out) {
    int sign = 1;
    if (eat('-'))
      sign = -1;
    else
      eat('+');
    int h = 0, m = 0, sec = 0;
    if (!number(h, 3))
      return false;
    if (eat(':')) {
      if (!number(m, 2))
        return false;
      if (eat(':') && !number(sec, 2))
        return false;
    }
    out = sign * (h * 3600 + m * 60 + sec);
    return true;
  }
  bool change(posix_tz_rule::change& c) {
    if (eat('M')) {
      c.kind = posix_tz_rule::date_kind::month_week_day;
      if (!number(c.month, 2) || !eat('.') || !number(c.week, 1) || !eat('.') ||
          !number(c.weekday, 1))
        return false;
      if (c.month < 1 || c.month > 12 || c.week < 1 || c.week > 5 || c.weekday > 6)
        return false;
    } else if (eat('J')) {
      c.kind = posix_tz_rule::date_kind::julian_no_leap;
      if (!number(c.day, 3) || c.day < 1 || c.day > 365)
        return false;
    } else {
      c.kind = posix_tz_rule::date_kind::julian_zero;
      if (!number(c.day, 3) || c.day > 365)
        return false;
    }
    c.time_s = 7200;
    if (eat('/'))
      return hms(c.time_s);
    return true;
  }

private:
  std::string_view s_;
  size_t i_ = 0;
};

uint32_t be32(std::string_view b, size_t at) {
  return (uint32_t(uint8_t(b[at])) << 24) | (uint32_t(uint8_t(b[at + 1])) << 16) |
         (uint32_t(uint8_t(b[at + 2])) << 8) | uint32_t(uint8_t(b[at + 3]));
}

int64_t be64(std::string_view b, size_t at) {
  return static_cast<int64_t>((uint64_t(be32(b, at)) << 32) | be32(b, at + 4));
}

bool valid_zone_name(std::string_view name) {
  if (name.empty() || name.front() == '/' || name.size() > 128)
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' ||
          c == '+'))
      return false;
  return name.find("..") == std::string_view::npos;
}

} // namespace

result<posix_tz_rule> parse_posix_tz(std::string_view text) {
  posix_tz_rule rule;
  tz_parser p(text);
  auto bad = [&] { return status::invalid_argument("invalid POSIX TZ rule \"" + std::string(text) + "\""); };
  int32_t std_west = 0;
  if (!p.name() || !p.hms(std_west))
    return bad();
  rule.std_offset_s = -std_west;
  if (p.done())
    return rule;
  if (!p.name())
    return bad();
  rule.has_dst = true;
  rule.dst_offset_s = rule.std_offset_s + 3600;
  if (p.peek() != ',' && !p.done()) {
    int32_t dst_west = 0;
    if (!p.hms(dst_west))
      return bad();
    rule.dst_offset_s = -dst_west;
  }
  if (p.done()) {
    // No rule given: POSIX leaves it implementation-defined; use the US rule.
    rule.start = {posix_tz_rule::date_kind::month_week_day, 3, 2, 0, 0, 7200};
    rule.end = {posix_tz_rule::date_kind::month_week_day, 11, 1, 0, 0, 7200};
    return rule;
  }
  if (!p.eat(',') || !p.change(rule.start) || !p.eat(',') || !p.change(rule.end) || !p.done())
    return bad();
  return rule;
}

int32_t posix_tz_offset(const posix_tz_rule& rule, int64_t t) {
  if (!rule.has_dst)
    return rule.std_offset_s;
  // Both changes of the year t falls in (in standard time) decide it.
  int64_t local_day = floor_div(t + rule.std_offset_s, 86400);
  chr::year_month_day ymd{chr::sys_days{chr::days{local_day}}};
  int year = static_cast<int>(ymd.year());
  int64_t start = change_local_seconds(rule.start, year) - rule.std_offset_s;
  int64_t end = change_local_seconds(rule.end, year) - rule.dst_offset_s;
  bool dst;
  if (start < end)
    dst = t >= start && t < end;
  else // southern hemisphere: DST spans New Year
    dst = !(t >= end && t < start);
  return dst ? rule.dst_offset_s : rule.std_offset_s;
}

time_zone::time_zone() = default;

time_zone time_zone::fixed(std::string name, int32_t offset_s) {
  time_zone z;
  z.name_ = std::move(name);
  z.initial_offset_s_ = offset_s;
  return z;
}

int32_t time_zone::utc_offset_s(millis t_ms) const {
  int64_t t = floor_div(t_ms, 1000);
  if (transitions_.empty() || t < transitions_.front()) {
    if (transitions_.empty() && has_footer_)
      return posix_tz_offset(footer_, t);
    return initial_offset_s_;
  }
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), t);
  size_t idx = static_cast<size_t>(it - transitions_.begin()) - 1;
  if (idx + 1 == transitions_.size() && has_footer_)
    return posix_tz_offset(footer_, t);
  return transition_offsets_[idx];
}

local_time_fields time_zone::to_local(millis t_ms) const {
  local_time_fields out;
  out.utc_offset_s = utc_offset_s(t_ms);
  int64_t local = floor_div(t_ms, 1000) + out.utc_offset_s;
  int64_t day = floor_div(local, 86400);
  int64_t sec = local - day * 86400;
  chr::year_month_day ymd{chr::sys_days{chr::days{day}}};
  out.year = static_cast<int>(ymd.year());
  out.month = static_cast<int>(static_cast<unsigned>(ymd.month()));
  out.day = static_cast<int>(static_cast<unsigned>(ymd.day()));
  out.weekday = static_cast<int>(chr::weekday{chr::sys_days{chr::days{day}}}.c_encoding());
  out.hour = static_cast<int>(sec / 3600);
  out.minute = static_cast<int>((sec / 60) % 60);
  out.second = static_cast<int>(sec % 60);
  return out;
}

result<time_zone> parse_tzif(std::string_view b, std::string name) {
  auto corrupt = [&](std::string what) {
    return status::corruption("time zone " + name + ": not a valid TZif file (" + what + ")");
  };
  if (b.size() < 44 || b.substr(0, 4) != "TZif")
    return corrupt("bad header");
  char version = b[4];
  auto counts = [&](size_t at, uint32_t c[6]) {
    for (int i = 0; i < 6; ++i)
      c[i] = be32(b, at + 20 + 4 * i);
  };
  uint32_t c[6];
  counts(0, c);
  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  auto block_size = [](const uint32_t* k, size_t time_size) {
    return k[3] * time_size + k[3] + k[4] * 6 + k[5] + k[2] * (time_size + 4) + k[1] + k[0];
  };
  size_t at = 44;
  size_t time_size = 4;
  if (version >= '2') {
    at += block_size(c, 4);
    if (b.size() < at + 44 || b.substr(at, 4) != "TZif")
      return corrupt("missing second header");
    counts(at, c);
    at += 44;
    time_size = 8;
  }
  if (c[4] == 0 || b.size() < at + block_size(c, time_size))
    return corrupt("truncated data block");
  time_zone z;
  z.name_ = std::move(name);
  std::vector<int64_t> times(c[3]);
  for (uint32_t i = 0; i < c[3]; ++i)
    times[i] = time_size == 8 ? be64(b, at + i * 8) : int32_t(be32(b, at + i * 4));
  size_t idx_at = at + c[3] * time_size;
  size_t type_at = idx_at + c[3];
  std::vector<int32_t> offsets(c[4]);
  std::vector<uint8_t> is_dst(c[4]);
  for (uint32_t i = 0; i < c[4]; ++i) {
    offsets[i] = static_cast<int32_t>(be32(b, type_at + i * 6));
    is_dst[i] = uint8_t(b[type_at + i * 6 + 4]);
  }
  for (uint32_t i = 0; i < c[3]; ++i) {
    uint8_t type = uint8_t(b[idx_at + i]);
    if (type >= c[4])
      return corrupt("transition type out of range");
    if (i > 0 && times[i] <= times[i - 1])
      return corrupt("transitions out of order");
    z.transitions_.push_back(times[i]);
    z.transition_offsets_.push_back(offsets[type]);
  }
  // Before the first transition: the first standard-time type (RFC 8536 3.2).
  z.initial_offset_s_ = offsets[0];
  for (uint32_t i = 0; i < c[4]; ++i)
    if (!is_dst[i]) {
      z.initial_offset_s_ = offsets[i];
      break;
    }
  if (version >= '2') {
    size_t footer_at = at + block_size(c, time_size);
    if (footer_at < b.size() && b[footer_at] == '\n') {
      size_t end = b.find('\n', footer_at + 1);
      if (end == std::string_view::npos)
        return corrupt("unterminated footer");
      std::string_view tz = b.substr(footer_at + 1, end - footer_at - 1);
      if (!tz.empty()) {
        auto rule = parse_posix_tz(tz);
        if (!rule)
          return corrupt(rule.error().message());
        z.has_footer_ = true;
        z.footer_ = *rule;
      }
    }
  }
  return z;
}

result<std::string> read_time_zone_file(std::string_view name, const std::filesystem::path& root) {
  if (name == "UTC" || name == "Etc/UTC")
    return std::string();
  if (!valid_zone_name(name))
    return status::invalid_argument("invalid time zone name \"" + std::string(name) + "\"");
  auto path = root / std::string(name);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return status::not_found("unknown time zone \"" + std::string(name) + "\" (no file " +
                             path.string() + ")");
  return read_file(path, 1u << 20);
}

result<time_zone> time_zone_from_tzif(std::string_view name, std::string_view bytes) {
  if (bytes.empty() && (name == "UTC" || name == "Etc/UTC"))
    return time_zone::fixed(std::string(name), 0);
  return parse_tzif(bytes, std::string(name));
}

result<time_zone> load_time_zone(std::string_view name, const std::filesystem::path& root) {
  auto bytes = read_time_zone_file(name, root);
  if (!bytes)
    return bytes.error();
  return time_zone_from_tzif(name, *bytes);
}

} // namespace ad::runtime
