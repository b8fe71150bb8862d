#pragma once
// Reads a message trace written by trace_writer. The whole file is checked:
// the first line must be a valid header, every other non-empty line a
// record, with seq strictly increasing and every decision's cause naming an
// earlier edge. Errors are invalid_argument "<file>:<line>: <what>" (the
// first bad line only). Reads files only; never throws.

#include <filesystem>
#include <string_view>
#include <vector>

#include "runtime/trace/trace_format.hpp"

namespace ad::runtime {

struct trace_file {
  trace_header header;
  std::vector<trace_record> records; // in seq order
};

result<trace_file> parse_trace(std::string_view text, std::string_view source);
result<trace_file> read_trace(const std::filesystem::path& file);

} // namespace ad::runtime
