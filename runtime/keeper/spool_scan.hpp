#pragma once
// Reading whole lines of a spool file (stream.log or a tail segment) at an
// offset with pread, so a reader never moves a shared file position and
// never sees half a line: bytes after the last '\n' are left for the next
// call. Used by stream_follower and seal_stream. No state, no threads;
// errors are io_error naming the file; nothing throws except bad_alloc.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "runtime/core/status.hpp"

namespace ad::runtime {

struct spool_scan {
  uint64_t consumed = 0;      // bytes of whole lines read (with their '\n')
  uint64_t lines = 0;         // lines passed to the callback
  uint64_t skipped_bytes = 0; // bytes of lines longer than max_line, skipped unread
  bool budget_reached = false;
  bool stopped = false;       // the callback asked to stop
};

// pread until n bytes or the end of the file; returns the bytes read.
result<std::size_t> read_spool_at(int fd, uint64_t offset, char* buf, std::size_t n,
                                  const std::filesystem::path& where);

// Calls on_line(line without '\n', offset of the line) for each whole line
// from offset on, while the lines' bytes stay within budget (the first line
// is read whatever its size, up to max_line). on_line returns false to stop
// after that line. A line longer than max_line (a damaged file) is skipped
// in pieces of max_line bytes, counted in skipped_bytes.
template <class OnLine>
result<spool_scan> scan_spool_lines(int fd, uint64_t offset, uint64_t budget, std::size_t max_line,
                                    const std::filesystem::path& where, OnLine&& on_line) {
  constexpr std::size_t chunk = 256 << 10;
  spool_scan out;
  std::string buf;
  std::size_t want = static_cast<std::size_t>(std::clamp<uint64_t>(budget, 4096, chunk));
  for (;;) {
    buf.resize(want);
    auto got = read_spool_at(fd, offset + out.consumed, buf.data(), want, where);
    if (!got)
      return got.error();
    std::string_view data(buf.data(), *got);
    std::size_t used = 0;
    for (;;) {
      auto nl = data.find('\n', used);
      if (nl == std::string_view::npos)
        break;
      std::size_t size = nl + 1 - used;
      if (out.lines > 0 && out.consumed + size > budget) {
        out.budget_reached = true;
        return out;
      }
      bool go_on = on_line(data.substr(used, nl - used), offset + out.consumed);
      out.consumed += size;
      ++out.lines;
      used = nl + 1;
      if (!go_on) {
        out.stopped = true;
        return out;
      }
    }
    if (used == 0) {
      // Not one whole line in what was read.
      if (*got < want)
        return out; // the end of the file, inside a line still being written
      if (want < max_line) {
        want = std::max(want, max_line);
        continue;
      }
      out.consumed += *got; // a damaged file: skip the over-long piece
      out.skipped_bytes += *got;
      continue;
    }
    if (*got < want || out.consumed >= budget) {
      out.budget_reached = *got == want && out.consumed >= budget;
      return out;
    }
    want = static_cast<std::size_t>(std::clamp<uint64_t>(budget - out.consumed, 4096, chunk));
  }
}

} // namespace ad::runtime
