#pragma once
// What a terminal makes of text: the columns a line takes (ANSI escape
// sequences take none, East Asian wide characters and most emoji two,
// combining marks none), a line cut to a width, the rows a frame takes at a
// width once long lines wrap, and local clock times. The board
// (board.hpp) keeps its frame within the terminal with these, and the
// output actor moves the cursor back over exactly the rows it drew.
// Pure functions, except read_terminal_size and system_utc_offset, which ask
// the system. Invalid UTF-8 counts one column per byte; never throws.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/core/clock.hpp"

namespace ad::runtime {

// Columns `text` takes on a terminal (one line: no '\n' expected).
size_t display_width(std::string_view text);

// `text` cut to at most `columns` columns, ending with "…" when cut (and a
// colour reset when it held escape sequences). columns == 0: unchanged.
std::string fit_width(std::string_view text, size_t columns);

// Rows `frame` takes on a terminal `columns` wide: each '\n'-ended line
// takes at least one row and wraps every `columns` columns. A last line
// without '\n' counts too. columns == 0: one row per line.
size_t frame_rows(std::string_view frame, size_t columns);

struct terminal_size {
  size_t columns = 0;  // 0: unknown
  size_t rows = 0;     // 0: unknown
  bool operator==(const terminal_size&) const = default;
};

// The size of the terminal on `fd` (TIOCGWINSZ); {0, 0} when it is none.
terminal_size read_terminal_size(int fd);

// "14:03:07" for t at the given offset east of UTC.
std::string format_local_clock(millis t, int32_t utc_offset_s);

// The system's offset east of UTC at t (TZ, else /etc/localtime).
int32_t system_utc_offset(millis t);

} // namespace ad::runtime
