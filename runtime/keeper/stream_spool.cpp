#include "runtime/keeper/stream_spool.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

#include "runtime/core/files.hpp"
#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/spool_index.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

// A line buffer that grew past this for a long line is given back after it.
constexpr std::size_t kept_line_capacity = 64 << 10;

// Appends data whole or not at all: a partial write is cut off again, so a
// reader never sees half a line followed by the next one.
status append_whole(int fd, std::string_view data, uint64_t& file_size, const fs::path& where) {
  std::string_view rest = data;
  while (!rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int err = errno;
      if (rest.size() != data.size()) {
        // Cut the partial line off again (if even that fails, the bytes stay).
        int rc = ::ftruncate(fd, static_cast<off_t>(file_size));
        (void) rc;
      }
      return status::from_errno("append to " + where.string(), err);
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  file_size += data.size();
  return status::ok();
}

} // namespace

stream_spool::stream_spool(stream_spool&& other) noexcept { *this = std::move(other); }

stream_spool& stream_spool::operator=(stream_spool&& other) noexcept {
  if (this != &other) {
    close_all();
    path_ = std::move(other.path_);
    keep_ = other.keep_;
    line_cap_ = other.line_cap_;
    fd_ = std::exchange(other.fd_, -1);
    head_size_ = other.head_size_;
    head_written_ = other.head_written_;
    past_head_ = other.past_head_;
    newest_ = std::exchange(other.newest_, segment{});
    older_ = other.older_;
    out_ = std::move(other.out_);
    err_ = std::move(other.err_);
    counts_ = other.counts_;
  }
  return *this;
}

stream_spool::~stream_spool() { close_all(); }

void stream_spool::close_all() noexcept {
  if (fd_ >= 0)
    ::close(fd_);
  if (newest_.fd >= 0)
    ::close(newest_.fd);
  fd_ = -1;
  newest_.fd = -1;
}

result<stream_spool> stream_spool::create(const fs::path& log, spool_retention keep,
                                          std::size_t line_cap) {
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return status::from_errno("create " + log.string(), errno);
  for (const auto& stale : {spool_segment_path(log, 0), spool_segment_path(log, 1), spool_index_path(log)})
    ::unlink(stale.c_str());
  stream_spool s;
  s.fd_ = fd;
  s.path_ = log;
  s.keep_ = keep;
  s.line_cap_ = line_cap == 0 ? 1 : line_cap;
  s.out_.line.assign(spool_tag(spool_channel::out));
  s.err_.line.assign(spool_tag(spool_channel::err));
  return s;
}

status stream_spool::feed(spool_channel channel, std::string_view data) {
  pending_line& p = pending(channel);
  const std::size_t tag = spool_tag(channel).size();
  status last;
  while (!data.empty()) {
    const void* nl = std::memchr(data.data(), '\n', data.size());
    std::size_t part = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - data.data())
                          : data.size();
    std::size_t held = p.line.size() - tag;
    std::size_t room = line_cap_ > held ? line_cap_ - held : 0;
    p.line.append(data.data(), std::min(part, room));
    if (part > room)
      p.dropped += part - room;
    if (!nl)
      break;
    if (auto st = end_line(channel); !st)
      last = st;
    data.remove_prefix(part + 1);
  }
  return last;
}

status stream_spool::finish(spool_channel channel) {
  pending_line& p = pending(channel);
  if (p.line.size() == spool_tag(channel).size() && p.dropped == 0)
    return status::ok();
  return end_line(channel);
}

status stream_spool::end_line(spool_channel channel) {
  pending_line& p = pending(channel);
  if (p.dropped > 0) {
    p.line += spool_cut_suffix(p.dropped);
    counts_.dropped_line_bytes += p.dropped;
  }
  p.line.push_back('\n');
  status st = write_line(p.line);
  if (st) {
    ++counts_.lines;
    counts_.bytes += p.line.size();
  } else {
    ++counts_.write_failures;
  }
  if (p.line.capacity() > kept_line_capacity)
    std::string().swap(p.line);
  p.line.assign(spool_tag(channel));
  p.dropped = 0;
  return st;
}

status stream_spool::write_line(std::string_view line) {
  if (fd_ < 0)
    return status::io_error("append to closed spool " + path_.string());
  uint64_t size = line.size();
  if (keep_.head_bytes == 0 || (!past_head_ && head_written_ + size <= keep_.head_bytes)) {
    if (auto st = append_whole(fd_, line, head_size_, path_); !st)
      return st;
    head_written_ += size;
    return status::ok();
  }
  if (!past_head_) {
    if (auto st = append_whole(fd_, spool_head_end_line(head_written_, keep_.tail_bytes), head_size_, path_);
        !st)
      return st;
    past_head_ = true;
    if (auto st = open_segment(0, 0); !st)
      return st;
  } else if (newest_.fd < 0) {
    // An earlier rotation could not create the new segment: try again.
    if (newest_.bytes > 0)
      return status::io_error("no open tail segment for " + path_.string());
    if (auto st = open_segment(newest_.start_bytes, newest_.start_lines); !st)
      return st;
  } else if (newest_.bytes > 0 && newest_.bytes + size > keep_.tail_bytes / 2) {
    if (auto st = rotate(); !st)
      return st;
  }
  if (auto st = append_whole(newest_.fd, line, newest_.bytes, spool_segment_path(path_, 0)); !st)
    return st;
  ++newest_.lines;
  return status::ok();
}

status stream_spool::open_segment(uint64_t start_bytes, uint64_t start_lines) {
  auto seg = spool_segment_path(path_, 0);
  int fd = ::open(seg.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return status::from_errno("create " + seg.string(), errno);
  struct stat st {};
  ::fstat(fd, &st);
  newest_ = segment{fd, static_cast<uint64_t>(st.st_ino), 0, 0, start_bytes, start_lines};
  return status::ok();
}

// The newest segment is full: it becomes the older one, whose lines go.
status stream_spool::rotate() {
  auto seg = spool_segment_path(path_, 0);
  ::close(newest_.fd);
  newest_.fd = -1;
  if (::rename(seg.c_str(), spool_segment_path(path_, 1).c_str()) != 0) {
    int err = errno;
    // Keep writing to the full segment rather than lose lines.
    newest_.fd = ::open(seg.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    return status::from_errno("rotate " + seg.string(), err);
  }
  if (older_) {
    counts_.cut_bytes += older_->bytes;
    counts_.cut_lines += older_->lines;
  }
  older_ = newest_;
  newest_ = segment{-1, 0, 0, 0, older_->start_bytes + older_->bytes, older_->start_lines + older_->lines};
  if (auto st = open_segment(older_->start_bytes + older_->bytes, older_->start_lines + older_->lines);
      !st)
    return st;
  spool_index index;
  index.newest = {newest_.inode, newest_.start_bytes, newest_.start_lines};
  index.older = spool_segment_start{older_->inode, older_->start_bytes, older_->start_lines};
  // Only a follower that fell behind needs it; a failure here loses no line.
  (void) write_spool_index(path_, index);
  return status::ok();
}

} // namespace ad::runtime
