#pragma once
// Sealing an agent's output spool once its keeper has ended and a reader
// has everything (docs/keeper.md): the kept tail segments are appended to
// the log after a line that counts what was cut, then removed with the
// spool index; the result is what runtime/attempt's line_file::seal leaves.
// Run by one dispatcher, never by the keeper, never while a keeper writes.
// Safe to run again after a crash at any point of an earlier run: a copy
// that was not complete is cut off and made again, a complete one is kept
// (the log is fsynced before a segment is removed). Error contract:
// io_error naming the file when a read, write or fsync fails; corruption
// when segments exist but the log has no head-end line; nothing throws.

#include <cstdint>
#include <filesystem>

#include "runtime/core/status.hpp"

namespace ad::runtime {

// cut_lines and cut_bytes: the exit record's stream counts. Nothing to do
// (OK) when the spool never passed its head or is sealed already.
status seal_stream(const std::filesystem::path& log, uint64_t cut_lines, uint64_t cut_bytes);

} // namespace ad::runtime
