#pragma once
// The files of one attempt folder (docs/attempt-files.md): an append-only
// line file (stream.log, normalized-output.log, heartbeat.log) written with
// one write(2) per line, so every line is in the file (page cache) when the
// call returns and a reader or a later dispatcher sees it at once, and a few
// helpers the attempt needs around them (a fresh UUID for a session id, the
// tail of a log for a silence inspection). Not thread-safe: one attempt owns
// its files. Error contract: never throws; open and append return io_error
// naming the path.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

class line_file {
public:
  line_file() = default;
  line_file(line_file&& other) noexcept;
  line_file& operator=(line_file&& other) noexcept;
  line_file(const line_file&) = delete;
  line_file& operator=(const line_file&) = delete;
  ~line_file();

  // Creates the file (truncating an existing one) and keeps it open.
  static result<line_file> create(const std::filesystem::path& path);

  // Appends text and a '\n' in one write.
  status append_line(std::string_view text);
  bool is_open() const noexcept { return fd_ >= 0; }
  const std::filesystem::path& path() const noexcept { return path_; }

private:
  int fd_ = -1;
  std::filesystem::path path_;
  std::string buffer_;
};

// A random (version 4) UUID in canonical 8-4-4-4-12 lower-case hex.
std::string random_uuid();

// The last max_chars characters of a file (cut at a line start when
// possible); empty when it cannot be read.
std::string log_tail(const std::filesystem::path& path, std::size_t max_bytes = 8192,
                     std::size_t max_chars = 2000);

} // namespace ad::runtime
