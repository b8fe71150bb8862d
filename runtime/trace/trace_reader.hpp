#pragma once
// Reads a message trace written by trace_writer. The whole file is checked:
// the first line must be a valid header, every other non-empty line a
// record, with seq strictly increasing and every decision's cause naming an
// earlier edge. One exception: a last line that does not end in a newline
// and does not parse was cut by a crash during its write; it is left out
// and reported (trace_file::cut_last_line). Errors are invalid_argument
// "<file>:<line>: <what>" (the first bad line only). Reads files only;
// never throws.

#include <cstddef>
#include <filesystem>
#include <string_view>
#include <vector>

#include "runtime/trace/trace_format.hpp"

namespace ad::runtime {

struct trace_file {
  trace_header header;
  std::vector<trace_record> records; // in seq order
  std::size_t cut_last_line = 0;     // the line number of a cut last line (0: none)
};

result<trace_file> parse_trace(std::string_view text, std::string_view source);
// A trace is read whole: larger files are refused (docs/limits.md).
inline constexpr std::size_t trace_max_bytes = std::size_t{1} << 30;
result<trace_file> read_trace(const std::filesystem::path& file);

} // namespace ad::runtime
