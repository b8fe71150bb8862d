#include "runtime/keeper/stream_follower.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <optional>
#include <utility>

#include "runtime/core/files.hpp"
#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/spool_index.hpp"
#include "runtime/keeper/spool_scan.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

struct stream_follower::budget {
  uint64_t left;
  bool more_waiting = false; // stop this call: max_bytes reached, or a gap is next
};

namespace {

struct file_state {
  bool exists = false;
  uint64_t inode = 0;
  uint64_t size = 0;
  bool same_file(const file_state& o) const { return exists == o.exists && inode == o.inode; }
};

file_state stat_file(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return {};
  return {true, static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_size)};
}

// A segment that may be read next, and where it begins in the segment stream.
struct candidate {
  int age = 0;
  uint64_t inode = 0;
  uint64_t start_bytes = 0;
  std::optional<uint64_t> start_lines; // unknown in the middle of a rotation
};

// The segments on disk with their starts, or nullopt while a rotation is
// under way (the index and the files do not agree yet): try again later.
result<std::optional<std::vector<candidate>>> take_snapshot(const fs::path& log) {
  using snapshot = std::optional<std::vector<candidate>>;
  for (int attempt = 0; attempt < 3; ++attempt) {
    file_state older = stat_file(spool_segment_path(log, 1));
    file_state newest = stat_file(spool_segment_path(log, 0));
    auto index = read_spool_index(log);
    if (!index)
      return index.error();
    if (!older.same_file(stat_file(spool_segment_path(log, 1))) ||
        !newest.same_file(stat_file(spool_segment_path(log, 0))))
      continue; // a rotation went by while the index was read
    std::vector<candidate> out;
    const auto& idx = *index;
    if (!idx) {
      // No rotation finished yet: the older segment, if any, is the first.
      if (older.exists)
        out.push_back({1, older.inode, 0, uint64_t{0}});
      if (newest.exists)
        out.push_back({0, newest.inode, older.exists ? older.size : 0,
                       older.exists ? std::nullopt : std::optional<uint64_t>(0)});
    } else if (newest.exists && idx->newest.inode == newest.inode) {
      if (older.exists) {
        if (!idx->older || idx->older->inode != older.inode)
          return snapshot{};
        out.push_back({1, older.inode, idx->older->start_bytes, idx->older->start_lines});
      }
      out.push_back({0, newest.inode, idx->newest.start_bytes, idx->newest.start_lines});
    } else if (older.exists && idx->newest.inode == older.inode) {
      // Renamed, the index not yet rewritten: the indexed newest is now the older.
      out.push_back({1, older.inode, idx->newest.start_bytes, idx->newest.start_lines});
      if (newest.exists)
        out.push_back({0, newest.inode, idx->newest.start_bytes + older.size, std::nullopt});
    } else {
      return snapshot{};
    }
    return snapshot(std::move(out));
  }
  return snapshot{};
}

} // namespace

stream_follower::stream_follower(fs::path attempt_dir, std::size_t line_cap)
  : log_(std::move(attempt_dir) / keeper_stream_file), line_cap_(line_cap == 0 ? 1 : line_cap) {}

stream_follower::stream_follower(stream_follower&& other) noexcept { *this = std::move(other); }

stream_follower& stream_follower::operator=(stream_follower&& other) noexcept {
  if (this != &other) {
    close_all();
    log_ = std::move(other.log_);
    line_cap_ = other.line_cap_;
    phase_ = other.phase_;
    head_fd_ = std::exchange(other.head_fd_, -1);
    head_offset_ = other.head_offset_;
    head_end_ = other.head_end_;
    seg_ = std::exchange(other.seg_, segment_reader{});
    last_inode_ = other.last_inode_;
    last_start_ = other.last_start_;
    pos_bytes_ = other.pos_bytes_;
    pos_lines_ = other.pos_lines_;
    totals_ = other.totals_;
  }
  return *this;
}

stream_follower::~stream_follower() { close_all(); }

void stream_follower::close_all() noexcept {
  for (int* fd : {&head_fd_, &seg_.fd})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
}

void stream_follower::take(follow_batch& batch, std::string_view line) {
  auto p = parse_spool_line(line, line_cap_);
  if (p.kind != spool_line_kind::agent) {
    ++batch.malformed_lines;
    return;
  }
  batch.lines.push_back({p.channel, std::string(p.text), p.cut, p.dropped_bytes});
}

result<follow_batch> stream_follower::poll(std::size_t max_bytes) {
  follow_batch batch;
  budget left{max_bytes == 0 ? 1 : max_bytes};
  if (head_fd_ < 0) {
    auto fd = open_regular_file(log_);
    if (!fd)
      return fd.error().is_not_found() ? result<follow_batch>(std::move(batch)) : fd.error();
    head_fd_ = *fd;
  }
  status st;
  if (phase_ == phase::head)
    st = read_head(batch, left);
  if (st && phase_ == phase::segments && !left.more_waiting)
    st = read_segments(batch, left);
  if (st && phase_ == phase::sealed && !left.more_waiting)
    st = read_sealed(batch, left);
  totals_.lines += batch.lines.size();
  totals_.lost_lines += batch.lost_lines;
  totals_.lost_bytes += batch.lost_bytes;
  totals_.malformed_lines += batch.malformed_lines;
  if (!st)
    return st; // the lines of this batch are lost to the caller only if it drops them
  batch.progress = left.more_waiting ? follow_progress::more_waiting : follow_progress::caught_up;
  return batch;
}

status stream_follower::read_head(follow_batch& batch, budget& left) {
  const std::size_t max_line = spool_max_line_bytes(line_cap_);
  auto scan = scan_spool_lines(head_fd_, head_offset_, left.left, max_line, log_,
                               [&](std::string_view line, uint64_t offset) {
                                 auto p = parse_spool_line(line, line_cap_);
                                 if (p.kind == spool_line_kind::head_end) {
                                   phase_ = phase::segments;
                                   head_end_ = offset + line.size() + 1;
                                   return false;
                                 }
                                 take(batch, line);
                                 return true;
                               });
  if (!scan)
    return scan.error();
  head_offset_ += scan->consumed;
  left.left -= std::min(left.left, scan->consumed);
  left.more_waiting = scan->budget_reached;
  return status::ok();
}

status stream_follower::read_segments(follow_batch& batch, budget& left) {
  const std::size_t max_line = spool_max_line_bytes(line_cap_);
  const fs::path newest_path = spool_segment_path(log_, 0);
  // A poll moves through a few segments at most (each switch reads one to
  // its end); the bound keeps a damaged folder from looping.
  for (int switches = 0; phase_ == phase::segments && switches < 8; ++switches) {
    if (seg_.fd < 0) {
      move next = move::stay;
      if (auto st = enter_sealed(batch, next); !st)
        return st;
      if (next == move::stay)
        if (auto st = next_segment(batch, next); !st)
          return st;
      if (next == move::gap_ahead)
        left.more_waiting = true; // the next call reports the gap first
      if (next != move::moved || phase_ == phase::sealed)
        return status::ok();
    }
    // Still the newest segment: the keeper may append to it. Otherwise it
    // is complete, and once read to its end the next one follows.
    bool growing = stat_file(newest_path).inode == seg_.inode;
    auto scan = scan_spool_lines(seg_.fd, seg_.offset, left.left, max_line, newest_path,
                                 [&](std::string_view line, uint64_t) {
                                   take(batch, line);
                                   return true;
                                 });
    if (!scan)
      return scan.error();
    seg_.offset += scan->consumed;
    seg_.lines += scan->lines;
    pos_bytes_ = seg_.start_bytes + seg_.offset;
    pos_lines_ = seg_.start_lines + seg_.lines;
    left.left -= std::min(left.left, scan->consumed);
    if (scan->budget_reached) {
      left.more_waiting = true;
      return status::ok();
    }
    if (growing)
      return status::ok();
    struct stat st {};
    if (::fstat(seg_.fd, &st) == 0 && static_cast<uint64_t>(st.st_size) > seg_.offset) {
      // A complete segment ending inside a line: its writer died mid-line.
      ++batch.malformed_lines;
      pos_bytes_ = seg_.start_bytes + static_cast<uint64_t>(st.st_size);
    }
    last_inode_ = seg_.inode;
    last_start_ = seg_.start_bytes;
    ::close(seg_.fd);
    seg_ = segment_reader{};
  }
  return status::ok();
}

// Opens the first segment on disk that begins at or after the position
// read so far; what lies between was cut before it could be read. A batch
// never spans such a gap: with lines in the batch already, it stops there.
status stream_follower::next_segment(follow_batch& batch, move& result) {
  auto snap = take_snapshot(log_);
  if (!snap)
    return snap.error();
  if (!*snap)
    return status::ok();
  for (const candidate& c : **snap) {
    if (c.start_bytes < pos_bytes_ || (c.inode == last_inode_ && c.start_bytes == last_start_))
      continue; // read already
    if (c.start_bytes > pos_bytes_ && !batch.lines.empty()) {
      result = move::gap_ahead;
      return status::ok();
    }
    fs::path path = spool_segment_path(log_, c.age);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
      return errno == ENOENT ? status::ok() : status::from_errno("open " + path.string(), errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_ino) != c.inode) {
      ::close(fd); // rotated between the snapshot and the open: next call
      return status::ok();
    }
    if (c.start_bytes > pos_bytes_) {
      batch.lost_bytes += c.start_bytes - pos_bytes_;
      if (c.start_lines && *c.start_lines > pos_lines_)
        batch.lost_lines += *c.start_lines - pos_lines_;
    }
    seg_ = segment_reader{fd, c.inode, 0, 0, c.start_bytes, c.start_lines.value_or(pos_lines_)};
    pos_bytes_ = c.start_bytes;
    pos_lines_ = seg_.start_lines;
    result = move::moved;
    return status::ok();
  }
  return status::ok();
}

// The log grew past its head-end line: it was sealed, the tail copied into
// it after a line counting what was cut. Reading goes on there, from the
// position reached in the segments.
status stream_follower::enter_sealed(follow_batch& batch, move& result) {
  struct stat st {};
  if (::fstat(head_fd_, &st) != 0)
    return status::from_errno("stat " + log_.string(), errno);
  if (static_cast<uint64_t>(st.st_size) <= head_end_)
    return status::ok();
  uint64_t region = head_end_, region_bytes = 0, region_lines = 0;
  bool whole = false;
  auto scan = scan_spool_lines(head_fd_, head_end_, 1, spool_max_line_bytes(line_cap_), log_,
                               [&](std::string_view line, uint64_t) {
                                 whole = true;
                                 auto p = parse_spool_line(line, line_cap_);
                                 if (p.kind == spool_line_kind::cut) {
                                   region += line.size() + 1;
                                   region_bytes = p.cut_bytes;
                                   region_lines = p.cut_lines;
                                 }
                                 return false;
                               });
  if (!scan)
    return scan.error();
  if (!whole)
    return status::ok(); // the first line of the sealed part is not whole yet
  if (pos_bytes_ < region_bytes && !batch.lines.empty()) {
    result = move::gap_ahead;
    return status::ok();
  }
  if (pos_bytes_ >= region_bytes) {
    head_offset_ = region + (pos_bytes_ - region_bytes);
  } else {
    batch.lost_bytes += region_bytes - pos_bytes_;
    batch.lost_lines += region_lines > pos_lines_ ? region_lines - pos_lines_ : 0;
    head_offset_ = region;
    pos_bytes_ = region_bytes;
    pos_lines_ = region_lines;
  }
  phase_ = phase::sealed;
  result = move::moved;
  return status::ok();
}

status stream_follower::read_sealed(follow_batch& batch, budget& left) {
  auto scan = scan_spool_lines(head_fd_, head_offset_, left.left, spool_max_line_bytes(line_cap_), log_,
                               [&](std::string_view line, uint64_t) {
                                 take(batch, line);
                                 return true;
                               });
  if (!scan)
    return scan.error();
  head_offset_ += scan->consumed;
  pos_bytes_ += scan->consumed;
  pos_lines_ += scan->lines;
  left.left -= std::min(left.left, scan->consumed);
  left.more_waiting = scan->budget_reached;
  return status::ok();
}

} // namespace ad::runtime
