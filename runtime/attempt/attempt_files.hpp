#pragma once
// The files of one attempt folder (docs/attempt-files.md): an append-only
// line file (stream.log, normalized-output.log, heartbeat.log) written with
// one write(2) per line, so every line is in the file (page cache) when the
// call returns and a reader or a later dispatcher sees it at once, and a few
// helpers the attempt needs around them (a fresh UUID for a session id, the
// tail of a log for a silence inspection). Not thread-safe: one attempt owns
// its files. Error contract: never throws; open and append return io_error
// naming the path.
//
// Retention (docs/limits.md): a line file may keep only its first
// head_bytes and its newest tail_bytes. Past the head, one line marks the
// cut and further lines go to two segment files beside it, <name>.tail
// (the newest) and <name>.tail.1 (the one before), each at most half the
// tail; when the newest is full it replaces the older one. seal() (at the
// attempt's end) appends the kept segments to the file after a line saying
// how many lines and bytes were dropped, and removes them. A dispatcher
// that dies first leaves the segments, and log_tail() reads them.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

struct line_retention {
  uint64_t head_bytes = 0; // 0: keep every line
  uint64_t tail_bytes = 0; // newest bytes kept past the head
};

// stream.log and normalized-output.log: 8 MiB of head, 8 MiB of tail.
inline constexpr line_retention attempt_log_retention{uint64_t{8} << 20, uint64_t{8} << 20};

// The newest segment of a retained line file (<path>.tail) and the one
// before it (<path>.tail.1).
std::filesystem::path tail_segment(const std::filesystem::path& path, int age);

class line_file {
public:
  line_file() = default;
  line_file(line_file&& other) noexcept;
  line_file& operator=(line_file&& other) noexcept;
  line_file(const line_file&) = delete;
  line_file& operator=(const line_file&) = delete;
  ~line_file();

  // Creates the file (truncating an existing one) and keeps it open.
  static result<line_file> create(const std::filesystem::path& path, line_retention keep = {});
  // Opens the file to append to it (creating it when missing), without
  // retention: an adopted attempt's heartbeat log goes on where it was.
  static result<line_file> append_to(const std::filesystem::path& path);

  // Appends text and a '\n' in one write (to the tail segment past the head).
  status append_line(std::string_view text);
  // Moves the kept tail into the file (see above); nothing to do when the
  // head was never filled. Idempotent.
  status seal();
  bool is_open() const noexcept { return fd_ >= 0; }
  const std::filesystem::path& path() const noexcept { return path_; }
  uint64_t cut_lines() const noexcept { return cut_lines_; }
  uint64_t cut_bytes() const noexcept { return cut_bytes_; }

private:
  status open_segment();
  int fd_ = -1;
  std::filesystem::path path_;
  std::string buffer_;
  line_retention keep_;
  uint64_t head_written_ = 0;
  int segment_fd_ = -1; // past the head
  uint64_t segment_bytes_ = 0, segment_lines_ = 0;
  uint64_t older_bytes_ = 0, older_lines_ = 0; // <path>.tail.1
  uint64_t cut_bytes_ = 0, cut_lines_ = 0;
};

// A random (version 4) UUID in canonical 8-4-4-4-12 lower-case hex.
std::string random_uuid();

// The last max_chars characters of a file (cut at a line start when
// possible), read from its tail segments while they exist; empty when it
// cannot be read.
std::string log_tail(const std::filesystem::path& path, std::size_t max_bytes = 8192,
                     std::size_t max_chars = 2000);

} // namespace ad::runtime
