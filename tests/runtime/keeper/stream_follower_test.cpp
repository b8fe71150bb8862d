// The dispatcher's follower of a keeper's spool: every line once, in order,
// across the head and the rotating tail segments, with exact counts of
// what a follower that fell behind lost; bounded per call; a sealed spool.

#include "runtime/keeper/stream_follower.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/stream_seal.hpp"
#include "runtime/keeper/stream_spool.hpp"
#include "tests/runtime/keeper/spool_test_support.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;
using spool_test::content;
using spool_test::numbered;

// A spool of 20-byte lines: 5 in the head, segments of 2 lines (40 of 50
// bytes), so every second line past the head rotates.
struct spool_fixture {
  explicit spool_fixture(spool_retention keep = {100, 100})
    : spool(std::move(stream_spool::create(log, keep).value())) {}
  test::temp_dir dir;
  fs::path log = dir.path() / keeper_stream_file;
  stream_spool spool;
  int written = 0;

  void write(int n) {
    for (int i = 0; i < n; ++i, ++written)
      ASSERT_TRUE(spool.feed(spool_channel::out, numbered(written) + "\n").is_ok());
  }
};

// Polls until caught up; appends the numbers of the lines read.
follow_batch drain(stream_follower& f, std::vector<int>& seen, std::size_t max_bytes = 1 << 20) {
  follow_batch total;
  for (int guard = 0; guard < 10000; ++guard) {
    auto b = f.poll(max_bytes);
    EXPECT_TRUE(b.is_ok()) << b.error().to_string();
    if (!b.is_ok())
      break;
    for (const auto& l : b->lines)
      seen.push_back(std::stoi(l.text.substr(5)));
    total.lost_lines += b->lost_lines;
    total.lost_bytes += b->lost_bytes;
    total.malformed_lines += b->malformed_lines;
    if (b->progress == follow_progress::caught_up)
      break;
  }
  return total;
}

std::vector<int> range(int from, int to) {
  std::vector<int> out;
  for (int i = from; i < to; ++i)
    out.push_back(i);
  return out;
}

TEST(stream_follower, returns_only_the_lines_appended_since_the_last_call) {
  spool_fixture s;
  stream_follower f(s.dir.path());
  ASSERT_TRUE(s.spool.feed(spool_channel::out, "one\n").is_ok());
  ASSERT_TRUE(s.spool.feed(spool_channel::err, "two\n").is_ok());
  auto b = f.poll(1 << 20);
  ASSERT_TRUE(b.is_ok());
  ASSERT_EQ(b->lines.size(), 2u);
  EXPECT_EQ(b->lines[0], (followed_line{spool_channel::out, "one", spool_cut::whole, 0}));
  EXPECT_EQ(b->lines[1], (followed_line{spool_channel::err, "two", spool_cut::whole, 0}));
  b = f.poll(1 << 20);
  ASSERT_TRUE(b.is_ok());
  EXPECT_TRUE(b->lines.empty());
  ASSERT_TRUE(s.spool.feed(spool_channel::out, "three\n").is_ok());
  b = f.poll(1 << 20);
  ASSERT_TRUE(b.is_ok());
  ASSERT_EQ(b->lines.size(), 1u);
  EXPECT_EQ(b->lines[0].text, "three");
}

TEST(stream_follower, a_missing_stream_log_is_an_empty_batch) {
  test::temp_dir dir;
  stream_follower f(dir.path());
  auto b = f.poll(1000);
  ASSERT_TRUE(b.is_ok()) << b.error().to_string();
  EXPECT_TRUE(b->lines.empty());
  EXPECT_EQ(b->progress, follow_progress::caught_up);
}

TEST(stream_follower, a_line_still_being_written_waits_for_its_newline) {
  test::temp_dir dir;
  auto log = dir.path() / keeper_stream_file;
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "[stdout] whole\n[stdout] hal", 27), 27);
  stream_follower f(dir.path());
  auto b = f.poll(1 << 20);
  ASSERT_TRUE(b.is_ok());
  ASSERT_EQ(b->lines.size(), 1u);
  ASSERT_EQ(::write(fd, "f\n", 2), 2);
  ::close(fd);
  b = f.poll(1 << 20);
  ASSERT_TRUE(b.is_ok());
  ASSERT_EQ(b->lines.size(), 1u);
  EXPECT_EQ(b->lines[0].text, "half");
}

TEST(stream_follower, reports_cut_lines_with_the_bytes_dropped) {
  test::temp_dir dir;
  auto spool = stream_spool::create(dir.path() / keeper_stream_file, {}, 10);
  ASSERT_TRUE(spool.is_ok());
  // A line that merely ends like a cut suffix is shorter than the cap.
  ASSERT_TRUE(spool->feed(spool_channel::out, "0123456789ABCDEF\nx [line cut: 3 bytes dropped]\n").is_ok());
  stream_follower f(dir.path(), 10);
  auto b = f.poll(1 << 20);
  ASSERT_TRUE(b.is_ok());
  ASSERT_EQ(b->lines.size(), 2u);
  EXPECT_EQ(b->lines[0], (followed_line{spool_channel::out, "0123456789", spool_cut::truncated, 6}));
  EXPECT_EQ(b->lines[1].cut, spool_cut::truncated) << "the second line is cut too: 29 bytes";
  EXPECT_EQ(b->lines[1].text, "x [line cu");
}

TEST(stream_follower, a_follower_polling_after_every_line_sees_each_line_once_across_rotations) {
  spool_fixture s;
  stream_follower f(s.dir.path());
  std::vector<int> seen;
  for (int i = 0; i < 60; ++i) {
    s.write(1);
    auto lost = drain(f, seen);
    ASSERT_EQ(lost.lost_lines, 0u) << "after line " << i;
  }
  EXPECT_EQ(seen, range(0, 60));
  EXPECT_EQ(f.totals().lines, 60u);
  EXPECT_EQ(f.totals().lost_bytes, 0u);
}

TEST(stream_follower, a_follower_two_rotations_behind_finishes_its_segment_and_counts_the_rest_lost) {
  spool_fixture s;
  stream_follower f(s.dir.path());
  std::vector<int> seen;
  s.write(6); // head 0-4, line 5 opens the first segment [5,6]
  drain(f, seen);
  EXPECT_EQ(seen, range(0, 6));
  // The writer goes on while the follower holds segment [5,6] half read:
  // [5,6] [7,8] [9,10] [11,12] [13]. [5,6] is gone from disk, but the
  // follower still reads line 6 through its descriptor; [7,8] and [9,10]
  // are lost.
  s.write(8);
  auto lost = drain(f, seen);
  std::vector<int> expected = range(0, 7);
  for (int i = 11; i < 14; ++i)
    expected.push_back(i);
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(lost.lost_lines, 4u);
  EXPECT_EQ(lost.lost_bytes, 80u);
  EXPECT_EQ(f.totals().lines + f.totals().lost_lines, static_cast<uint64_t>(s.written));
}

TEST(stream_follower, a_follower_that_starts_after_the_keeper_finished_loses_exactly_the_cut) {
  spool_fixture s;
  s.write(101);
  stream_follower f(s.dir.path());
  std::vector<int> seen;
  auto lost = drain(f, seen);
  const stream_counts& c = s.spool.counts();
  EXPECT_EQ(lost.lost_lines, c.cut_lines);
  EXPECT_EQ(lost.lost_bytes, c.cut_bytes);
  std::vector<int> expected = range(0, 5);
  for (int i = 5 + static_cast<int>(c.cut_lines); i < 101; ++i)
    expected.push_back(i);
  EXPECT_EQ(seen, expected);
}

TEST(stream_follower, a_batch_ends_where_a_gap_begins_so_the_loss_comes_before_its_lines) {
  spool_fixture s;
  s.write(30); // head 0-4; kept [27,28] [29]; 5 to 26 cut
  stream_follower f(s.dir.path());
  auto first = f.poll(1 << 20);
  ASSERT_TRUE(first.is_ok());
  ASSERT_EQ(first->lines.size(), 5u);
  EXPECT_EQ(first->lines.back().text, numbered(4));
  EXPECT_EQ(first->lost_lines, 0u);
  EXPECT_EQ(first->progress, follow_progress::more_waiting);
  auto second = f.poll(1 << 20);
  ASSERT_TRUE(second.is_ok());
  EXPECT_EQ(second->lost_lines, 22u);
  EXPECT_EQ(second->lost_bytes, 440u);
  ASSERT_EQ(second->lines.size(), 3u);
  EXPECT_EQ(second->lines.front().text, numbered(27));
  EXPECT_EQ(second->progress, follow_progress::caught_up);
}

TEST(stream_follower, max_bytes_bounds_each_call_and_every_line_still_comes_in_order) {
  spool_fixture s({100, 1000}); // segments of 25 lines: nothing is cut here
  stream_follower f(s.dir.path());
  s.write(5);
  auto b = f.poll(30); // one 20-byte line fits, a second would not
  ASSERT_TRUE(b.is_ok());
  EXPECT_EQ(b->lines.size(), 1u);
  EXPECT_EQ(b->progress, follow_progress::more_waiting);
  b = f.poll(1); // at least one line per call
  ASSERT_TRUE(b.is_ok());
  EXPECT_EQ(b->lines.size(), 1u);
  std::vector<int> seen = {0, 1};
  s.write(20);
  for (int guard = 0; guard < 100; ++guard) {
    auto n = f.poll(45);
    ASSERT_TRUE(n.is_ok()) << n.error().to_string();
    EXPECT_LE(n->lines.size(), 2u);
    for (const auto& l : n->lines)
      seen.push_back(std::stoi(l.text.substr(5)));
    if (n->progress == follow_progress::caught_up)
      break;
  }
  EXPECT_EQ(seen, range(0, 25));
}

TEST(stream_follower, reads_on_in_the_sealed_log_without_repeating_a_line) {
  spool_fixture s;
  stream_follower early(s.dir.path());
  std::vector<int> early_seen;
  for (int i = 0; i < 12; ++i) {
    s.write(1);
    drain(early, early_seen); // into the segments
  }
  s.write(3);
  const stream_counts c = s.spool.counts();
  ASSERT_TRUE(seal_stream(s.log, c.cut_lines, c.cut_bytes).is_ok());
  ASSERT_FALSE(fs::exists(spool_segment_path(s.log, 0)));
  auto lost = drain(early, early_seen);
  EXPECT_EQ(early_seen, range(0, 15));
  EXPECT_EQ(lost.lost_lines, 0u);

  stream_follower late(s.dir.path());
  std::vector<int> late_seen;
  lost = drain(late, late_seen);
  EXPECT_EQ(lost.lost_lines, c.cut_lines);
  EXPECT_EQ(lost.lost_bytes, c.cut_bytes);
  EXPECT_EQ(late_seen.size() + c.cut_lines, 15u);
  EXPECT_EQ(late_seen.back(), 14);
}

TEST(stream_follower, a_rotation_whose_index_is_not_yet_rewritten_is_still_counted_right) {
  spool_fixture s;
  s.write(16); // segments [13,14] [15]
  std::string index_before = content(spool_index_path(s.log));
  s.write(2);  // line 16 fills [15,16]; line 17 rotates: [15,16] [17]
  // The keeper died between the rename and the index write.
  s.dir.write("stream.log.tail.index", index_before);
  stream_follower f(s.dir.path());
  std::vector<int> seen;
  auto lost = drain(f, seen);
  std::vector<int> expected = range(0, 5);
  for (int i = 15; i < 18; ++i)
    expected.push_back(i);
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(lost.lost_lines, 10u);
  EXPECT_EQ(lost.lost_bytes, 200u);
}

TEST(stream_follower, a_malformed_index_is_an_error_naming_it) {
  spool_fixture s;
  s.write(16);
  s.dir.write("stream.log.tail.index", "{\"format\": 3}");
  stream_follower f(s.dir.path());
  auto b = f.poll(1 << 20); // the head, then the index is needed
  ASSERT_FALSE(b.is_ok());
  EXPECT_TRUE(b.error().is_invalid_argument());
  EXPECT_NE(b.error().message().find("stream.log.tail.index"), std::string::npos) << b.error().message();
  EXPECT_NE(b.error().message().find("\"format\""), std::string::npos) << b.error().message();
}

TEST(stream_follower, damaged_lines_are_skipped_and_counted) {
  test::temp_dir dir;
  dir.write("stream.log", "[stdout] a\ngarbage\n[stderr] b\n");
  stream_follower f(dir.path());
  auto b = f.poll(1 << 20);
  ASSERT_TRUE(b.is_ok());
  ASSERT_EQ(b->lines.size(), 2u);
  EXPECT_EQ(b->malformed_lines, 1u);
  EXPECT_EQ(b->lines[1].channel, spool_channel::err);
}

} // namespace
} // namespace ad::runtime
