#pragma once
// The rotation index of a retained spool (stream.log.tail.index,
// docs/keeper.md): where the newest tail segment, and the one before it,
// begin in the stream of lines past the head, keyed by the segments'
// inodes. The writer replaces it (temporary + rename, not synced: it only
// helps a follower) right after each rotation; a follower uses it to know,
// after it fell behind, how many bytes and lines went with the segments it
// never saw. Error contract: the reader returns nullopt when there is no
// index (no rotation yet), invalid_argument naming the file and the member
// when it is malformed, io_error when it cannot be read; nothing throws.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "runtime/core/status.hpp"

namespace ad::runtime {

// Where one segment begins: bytes and lines of the segment stream (every
// line past the head, cut or kept) before its first line.
struct spool_segment_start {
  uint64_t inode = 0;
  uint64_t start_bytes = 0;
  uint64_t start_lines = 0;
  friend bool operator==(const spool_segment_start&, const spool_segment_start&) = default;
};

struct spool_index {
  spool_segment_start newest;                // stream.log.tail
  std::optional<spool_segment_start> older;  // stream.log.tail.1
  friend bool operator==(const spool_index&, const spool_index&) = default;
};

std::string spool_index_to_text(const spool_index& index);
result<spool_index> parse_spool_index(std::string_view text, std::string_view source);

// The index of the spool whose head is `log`.
status write_spool_index(const std::filesystem::path& log, const spool_index& index);
result<std::optional<spool_index>> read_spool_index(const std::filesystem::path& log);

} // namespace ad::runtime
