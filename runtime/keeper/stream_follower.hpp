#pragma once
// The reader side of an agent's output spool, for the dispatcher
// (docs/keeper.md): each poll() returns the lines the keeper appended since
// the last call, in order, from the head of stream.log, then from the tail
// segments as they rotate (stream.log.tail.1, stream.log.tail), or from the
// log itself once it was sealed. It never reads a line twice and never
// skips one that is still on disk: it holds the segment it reads open (a
// rotated or removed segment stays readable through that descriptor) and
// compares inodes to find the next one; a follower that fell behind by more
// than the two kept segments reports the lines and bytes it lost (from the
// spool index) instead of failing. A line still being written is left for
// the next call.
//
// Threading: none of its own; one follower is used by one thread at a
// time, and many followers may run on one thread (no sleeps, no blocking
// reads: regular files only, opened without blocking, no global state).
// Memory per call is bounded by max_bytes (at least one line is returned,
// so a single line of up to the writer's line cap may exceed it). Error
// contract: poll() returns io_error naming the file when a read fails and
// invalid_argument when the spool index is malformed; a missing stream.log
// is an empty batch (the keeper has not started yet); nothing throws
// except std::bad_alloc.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/core/status.hpp"
#include "runtime/keeper/spool_format.hpp"

namespace ad::runtime {

struct followed_line {
  spool_channel channel = spool_channel::out;
  std::string text; // without '\n', tag or cut suffix
  spool_cut cut = spool_cut::whole;
  uint64_t dropped_bytes = 0; // cut lines: bytes the keeper dropped
  friend bool operator==(const followed_line&, const followed_line&) = default;
};

enum class follow_progress : uint8_t {
  caught_up,   // everything on disk was read
  more_waiting // max_bytes was reached, or a gap comes next: call again
};

// Lines lost to the retention always come before the batch's first line:
// a batch never spans a gap (it ends where one begins).
struct follow_batch {
  std::vector<followed_line> lines;
  uint64_t lost_lines = 0;      // lines cut before this follower read them, just before lines[0]
  uint64_t lost_bytes = 0;      // their bytes in the spool
  uint64_t malformed_lines = 0; // damaged lines skipped (none in a spool written whole)
  follow_progress progress = follow_progress::caught_up;
};

// Everything a follower has seen so far.
struct follow_totals {
  uint64_t lines = 0; // agent lines returned
  uint64_t lost_lines = 0;
  uint64_t lost_bytes = 0;
  uint64_t malformed_lines = 0;
};

class stream_follower {
public:
  // attempt_dir holds stream.log; line_cap must be the keeper's --line-cap
  // (keeper_record::line_cap).
  explicit stream_follower(std::filesystem::path attempt_dir,
                           std::size_t line_cap = spool_default_line_cap);
  stream_follower(stream_follower&& other) noexcept;
  stream_follower& operator=(stream_follower&& other) noexcept;
  stream_follower(const stream_follower&) = delete;
  stream_follower& operator=(const stream_follower&) = delete;
  ~stream_follower();

  // The lines appended since the last call, about max_bytes of them at most.
  result<follow_batch> poll(std::size_t max_bytes);

  const follow_totals& totals() const noexcept { return totals_; }

private:
  enum class phase : uint8_t { head, segments, sealed };
  struct segment_reader {
    int fd = -1;
    uint64_t inode = 0;
    uint64_t offset = 0; // bytes read from the segment
    uint64_t lines = 0;  // lines read from the segment
    uint64_t start_bytes = 0, start_lines = 0;
  };
  struct budget;

  void close_all() noexcept;
  status read_head(follow_batch& batch, budget& left);
  status read_segments(follow_batch& batch, budget& left);
  status read_sealed(follow_batch& batch, budget& left);
  enum class move : uint8_t { stay, moved, gap_ahead };
  status next_segment(follow_batch& batch, move& result);
  status enter_sealed(follow_batch& batch, move& result);
  void take(follow_batch& batch, std::string_view line);

  std::filesystem::path log_;
  std::size_t line_cap_;
  phase phase_ = phase::head;
  int head_fd_ = -1;
  uint64_t head_offset_ = 0; // next unread byte of stream.log
  uint64_t head_end_ = 0;    // just past the head-end line
  segment_reader seg_;
  uint64_t last_inode_ = 0;  // the segment read last, once closed
  uint64_t last_start_ = 0;
  uint64_t pos_bytes_ = 0;   // segment stream read (or lost) so far
  uint64_t pos_lines_ = 0;
  follow_totals totals_;
};

} // namespace ad::runtime
