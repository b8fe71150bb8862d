#include "runtime/keeper/stream_seal.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <limits>
#include <string>
#include <vector>

#include "runtime/core/files.hpp"
#include "runtime/core/unique_fd.hpp"
#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/spool_format.hpp"
#include "runtime/keeper/spool_scan.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

// The size of a regular file, -1 when it does not exist.
result<int64_t> segment_size(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0)
    return errno == ENOENT ? result<int64_t>(int64_t{-1}) : status::from_errno("stat " + p.string(), errno);
  if (!S_ISREG(st.st_mode))
    return status::invalid_argument(p.string() + " is not a regular file");
  return static_cast<int64_t>(st.st_size);
}

status write_at(int fd, std::string_view data, uint64_t& at, const fs::path& where) {
  while (!data.empty()) {
    ssize_t n = ::pwrite(fd, data.data(), data.size(), static_cast<off_t>(at));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return status::from_errno("write " + where.string(), errno);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
    at += static_cast<uint64_t>(n);
  }
  return status::ok();
}

status copy_segment(const fs::path& seg, int out, uint64_t& at, const fs::path& log) {
  unique_fd in(::open(seg.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (in.get() < 0)
    return errno == ENOENT ? status::ok() : status::from_errno("open " + seg.string(), errno);
  std::vector<char> chunk(64 << 10);
  for (uint64_t from = 0;;) {
    auto got = read_spool_at(in.get(), from, chunk.data(), chunk.size(), seg);
    if (!got)
      return got.error();
    if (*got == 0)
      return status::ok();
    if (auto st = write_at(out, std::string_view(chunk.data(), *got), at, log); !st)
      return st;
    from += *got;
  }
}

// The offset just past the head-end line of the log, or 0 when it has none.
result<uint64_t> head_end(int fd, const fs::path& log) {
  // The head holds only whole spool lines; a line longer than this is
  // skipped unread, which cannot hide the short head-end line.
  constexpr std::size_t max_line = std::size_t{16} << 20;
  uint64_t end = 0;
  auto scan = scan_spool_lines(fd, 0, std::numeric_limits<uint64_t>::max(), max_line, log,
                               [&](std::string_view line, uint64_t offset) {
                                 auto p = parse_spool_line(line, std::numeric_limits<std::size_t>::max());
                                 if (p.kind == spool_line_kind::head_end && p.head_bytes == offset) {
                                   end = offset + line.size() + 1;
                                   return false;
                                 }
                                 return true;
                               });
  if (!scan)
    return scan.error();
  return end;
}

} // namespace

status seal_stream(const fs::path& log, uint64_t cut_lines, uint64_t cut_bytes) {
  const fs::path older = spool_segment_path(log, 1), newest = spool_segment_path(log, 0);
  auto older_size = segment_size(older);
  if (!older_size)
    return older_size.error();
  auto newest_size = segment_size(newest);
  if (!newest_size)
    return newest_size.error();
  if (*older_size < 0 && *newest_size < 0) {
    ::unlink(spool_index_path(log).c_str());
    return status::ok();
  }
  unique_fd fd(::open(log.c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0)
    return status::from_errno("open " + log.string(), errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return status::from_errno("stat " + log.string(), errno);
  if (!S_ISREG(st.st_mode))
    return status::invalid_argument(log.string() + " is not a regular file");
  auto region = head_end(fd.get(), log);
  if (!region)
    return region.error();
  if (*region == 0)
    return status::corruption(log.string() + " has tail segments but no line that ends its head");

  std::string cut = cut_lines > 0 ? spool_cut_line(cut_lines, cut_bytes) : std::string();
  uint64_t after = static_cast<uint64_t>(st.st_size) - *region;
  uint64_t expected = cut.size() + static_cast<uint64_t>(std::max<int64_t>(*older_size, 0)) +
                      static_cast<uint64_t>(std::max<int64_t>(*newest_size, 0));
  // A complete earlier copy is at least as long as what the remaining
  // segments make (segments are removed only after the copy is synced);
  // anything shorter is a copy cut short: make it again.
  if (after == 0 || after < expected) {
    if (::ftruncate(fd.get(), static_cast<off_t>(*region)) != 0)
      return status::from_errno("truncate " + log.string(), errno);
    uint64_t at = *region;
    if (auto s = write_at(fd.get(), cut, at, log); !s)
      return s;
    for (const auto& seg : {older, newest})
      if (auto s = copy_segment(seg, fd.get(), at, log); !s)
        return s;
    if (::fsync(fd.get()) != 0)
      return status::from_errno("fsync " + log.string(), errno);
  }
  for (const auto& p : {older, newest, spool_index_path(log)})
    if (::unlink(p.c_str()) != 0 && errno != ENOENT)
      return status::from_errno("remove " + p.string(), errno);
  auto parent = log.parent_path();
  return fsync_directory(parent.empty() ? fs::path(".") : parent);
}

} // namespace ad::runtime
