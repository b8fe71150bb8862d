#include "runtime/report/terminal_text.hpp"

#include <array>
#include <ctime>

#include <sys/ioctl.h>
#include <unistd.h>

namespace ad::runtime {
namespace {

struct code_range {
  char32_t first;
  char32_t last;
};

// Characters a terminal draws two columns wide (East Asian Wide and
// Fullwidth, and the emoji blocks), after Unicode's EastAsianWidth.txt.
constexpr std::array<code_range, 18> wide_ranges = {{
  {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x2E80, 0x303E},
  {0x3041, 0x33FF},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},
  {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE30, 0xFE4F},   {0xFF00, 0xFF60},
  {0xFFE0, 0xFFE6},   {0x1F300, 0x1F64F}, {0x1F680, 0x1F6FF}, {0x1F900, 0x1F9FF},
  {0x20000, 0x2FFFD},
  {0x30000, 0x3FFFD},
}};

// Characters drawn over the previous one (combining marks, zero-width
// spaces and joiners, variation selectors).
constexpr std::array<code_range, 6> zero_ranges = {{
  {0x0300, 0x036F}, {0x200B, 0x200F}, {0x20D0, 0x20FF},
  {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}, {0x1AB0, 0x1AFF},
}};

bool in(char32_t c, const auto& ranges) {
  for (const auto& r : ranges)
    if (c >= r.first && c <= r.last)
      return true;
  return false;
}

size_t width_of(char32_t c) {
  if (c < 0x20 || (c >= 0x7F && c < 0xA0))
    return 0;
  if (in(c, zero_ranges))
    return 0;
  return in(c, wide_ranges) ? 2 : 1;
}

// One piece of text: an escape sequence (no columns), or one character
// (its UTF-8 bytes), or one invalid byte (one column).
struct piece {
  size_t bytes = 1;
  size_t columns = 0;
  bool escape = false;
};

piece next_piece(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b = byte(i);
  if (b == 0x1B) {  // ESC [ params final, or ESC and one byte
    size_t k = i + 1;
    if (k < s.size() && s[k] == '[') {
      ++k;
      while (k < s.size() && !(byte(k) >= 0x40 && byte(k) <= 0x7E))
        ++k;
      return {std::min(k + 1, s.size()) - i, 0, true};
    }
    return {std::min<size_t>(2, s.size() - i), 0, true};
  }
  if (b < 0x80)
    return {1, width_of(b), false};
  size_t len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
  if (len == 0 || i + len > s.size())
    return {1, 1, false};
  char32_t c = b & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80)
      return {1, 1, false};
    c = (c << 6) | (byte(i + k) & 0x3F);
  }
  return {len, width_of(c), false};
}

} // namespace

size_t display_width(std::string_view text) {
  size_t columns = 0;
  for (size_t i = 0; i < text.size();) {
    auto p = next_piece(text, i);
    columns += p.columns;
    i += p.bytes;
  }
  return columns;
}

std::string fit_width(std::string_view text, size_t columns) {
  if (columns == 0 || display_width(text) <= columns)
    return std::string(text);
  std::string out;
  size_t used = 0;
  bool escapes = false;
  for (size_t i = 0; i < text.size();) {
    auto p = next_piece(text, i);
    if (p.escape) {
      escapes = true;
      out.append(text.substr(i, p.bytes));
    } else if (used + p.columns + 1 > columns) {  // room for the "…"
      break;
    } else {
      out.append(text.substr(i, p.bytes));
      used += p.columns;
    }
    i += p.bytes;
  }
  out += "\u2026";
  if (escapes)
    out += "\x1b[0m";
  return out;
}

size_t frame_rows(std::string_view frame, size_t columns) {
  size_t rows = 0;
  auto count = [&](std::string_view line) {
    size_t w = display_width(line);
    rows += (columns == 0 || w <= columns) ? 1 : (w + columns - 1) / columns;
  };
  size_t start = 0;
  for (size_t nl = frame.find('\n'); nl != std::string_view::npos; nl = frame.find('\n', start)) {
    count(frame.substr(start, nl - start));
    start = nl + 1;
  }
  if (start < frame.size())
    count(frame.substr(start));
  return rows;
}

terminal_size read_terminal_size(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) != 0)
    return {};
  return {ws.ws_col, ws.ws_row};
}

std::string format_local_clock(millis t, int32_t utc_offset_s) {
  int64_t s = (t >= 0 ? t / 1000 : (t - 999) / 1000) + utc_offset_s;
  int64_t day_s = ((s % 86400) + 86400) % 86400;
  auto two = [](int64_t v) { return std::string(v < 10 ? "0" : "") + std::to_string(v); };
  return two(day_s / 3600) + ":" + two(day_s / 60 % 60) + ":" + two(day_s % 60);
}

int32_t system_utc_offset(millis t) {
  std::time_t s = static_cast<std::time_t>(t / 1000);
  std::tm local{};
  if (::localtime_r(&s, &local) == nullptr)
    return 0;
  return static_cast<int32_t>(local.tm_gmtoff);
}

} // namespace ad::runtime
