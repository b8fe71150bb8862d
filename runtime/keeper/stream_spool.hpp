#pragma once
// The writer side of an agent's output spool (docs/keeper.md): it takes the
// bytes the agent writes to stdout and stderr, splits them into lines (a
// line longer than the cap keeps its first line_cap bytes and the rest is
// counted and dropped up to the next '\n'), and appends each line as
// "[stdout] <text>" or "[stderr] <text>" with one write(2), so a reader
// sees every line whole as soon as it is written. Retention is line_file's
// (runtime/attempt/attempt_files.hpp): the first head_bytes stay in the
// log, a line marks the end of the head, and the newest tail_bytes live in
// two rotating segments (<log>.tail, the newest, and <log>.tail.1), each at
// most half the tail; after each rotation the spool index
// (spool_index.hpp) says where the kept segments begin. The spool never
// seals (seal_stream in stream_seal.hpp does, once a reader has everything).
// One spool belongs to one writer; not thread-safe; no threads. Error
// contract: create() fails with io_error naming the path; feed() and
// finish() return the last write error but go on with the following lines
// (a line that could not be written is counted in write_failures and leaves
// no partial bytes behind); nothing throws except std::bad_alloc.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/status.hpp"
#include "runtime/keeper/spool_format.hpp"

namespace ad::runtime {

struct spool_retention {
  uint64_t head_bytes = 0; // 0: keep every line in the log
  uint64_t tail_bytes = 0; // newest bytes kept past the head
  friend bool operator==(const spool_retention&, const spool_retention&) = default;
};

// 8 MiB of head and 8 MiB of tail, like the dispatcher's attempt logs.
inline constexpr spool_retention spool_default_retention{uint64_t{8} << 20, uint64_t{8} << 20};

struct stream_counts {
  uint64_t lines = 0;              // agent lines written, both channels
  uint64_t bytes = 0;              // their bytes in the spool (tag, text, cut suffix, '\n')
  uint64_t cut_lines = 0;          // of them, lines whose segment was dropped
  uint64_t cut_bytes = 0;          // and their bytes
  uint64_t dropped_line_bytes = 0; // bytes of over-long lines dropped by the line cap
  uint64_t write_failures = 0;     // lines that could not be written
  friend bool operator==(const stream_counts&, const stream_counts&) = default;
};

class stream_spool {
public:
  stream_spool(stream_spool&& other) noexcept;
  stream_spool& operator=(stream_spool&& other) noexcept;
  stream_spool(const stream_spool&) = delete;
  stream_spool& operator=(const stream_spool&) = delete;
  ~stream_spool();

  // Creates (truncates) the log and removes stale segments and index.
  static result<stream_spool> create(const std::filesystem::path& log, spool_retention keep,
                                     std::size_t line_cap = spool_default_line_cap);

  // Bytes the agent wrote on a channel; writes every line they complete.
  status feed(spool_channel channel, std::string_view data);
  // The channel ended: writes its last line if it had no '\n'.
  status finish(spool_channel channel);

  const stream_counts& counts() const noexcept { return counts_; }
  const std::filesystem::path& path() const noexcept { return path_; }

private:
  struct pending_line {
    std::string line; // tag + text so far
    uint64_t dropped = 0;
  };
  struct segment {
    int fd = -1;
    uint64_t inode = 0;
    uint64_t bytes = 0, lines = 0;
    uint64_t start_bytes = 0, start_lines = 0;
  };

  stream_spool() = default;
  void close_all() noexcept;
  pending_line& pending(spool_channel channel) { return channel == spool_channel::out ? out_ : err_; }
  status end_line(spool_channel channel);
  status write_line(std::string_view line);
  status open_segment(uint64_t start_bytes, uint64_t start_lines);
  status rotate();

  std::filesystem::path path_;
  spool_retention keep_;
  std::size_t line_cap_ = spool_default_line_cap;
  int fd_ = -1;
  uint64_t head_size_ = 0; // bytes in the log, marker included
  uint64_t head_written_ = 0;
  bool past_head_ = false; // the head is full: lines go to the segments
  segment newest_;
  std::optional<segment> older_; // closed; its counts only
  pending_line out_, err_;
  stream_counts counts_;
};

} // namespace ad::runtime
