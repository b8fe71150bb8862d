// The keeper's spool writer: line splitting, channel tags, cuts of long
// lines, and line_file's retention (head, marker, two rotating tail
// segments) with the rotation index beside them.

#include "runtime/keeper/stream_spool.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/spool_index.hpp"
#include "tests/runtime/keeper/spool_test_support.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;
using spool_test::content;
using spool_test::numbered;
using spool_test::spooled;

stream_spool make(const fs::path& log, spool_retention keep = {}, std::size_t cap = spool_default_line_cap) {
  auto s = stream_spool::create(log, keep, cap);
  EXPECT_TRUE(s.is_ok()) << s.error().to_string();
  return std::move(s.value());
}

uint64_t inode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_ino;
}

TEST(stream_spool, lines_split_across_reads_keep_their_channel_in_completion_order) {
  test::temp_dir dir;
  auto log = dir.path() / "stream.log";
  auto s = make(log);
  ASSERT_TRUE(s.feed(spool_channel::out, "a\nb").is_ok());
  ASSERT_TRUE(s.feed(spool_channel::err, "e").is_ok());
  ASSERT_TRUE(s.feed(spool_channel::out, "c\n\n").is_ok());
  ASSERT_TRUE(s.feed(spool_channel::err, "1\r\n").is_ok());
  ASSERT_TRUE(s.finish(spool_channel::out).is_ok());
  ASSERT_TRUE(s.finish(spool_channel::err).is_ok());
  std::string expected = "[stdout] a\n[stdout] bc\n[stdout] \n[stderr] e1\r\n";
  EXPECT_EQ(content(log), expected);
  EXPECT_EQ(s.counts().lines, 4u);
  EXPECT_EQ(s.counts().bytes, expected.size());
  EXPECT_EQ(s.counts().cut_lines, 0u);
}

TEST(stream_spool, bytes_pass_through_untouched) {
  test::temp_dir dir;
  auto log = dir.path() / "stream.log";
  auto s = make(log);
  std::string binary("x\0y\xff", 4);
  ASSERT_TRUE(s.feed(spool_channel::out, binary + "\n").is_ok());
  EXPECT_EQ(content(log), "[stdout] " + binary + "\n");
}

TEST(stream_spool, a_last_line_without_newline_is_written_when_its_channel_ends) {
  test::temp_dir dir;
  auto log = dir.path() / "stream.log";
  auto s = make(log);
  ASSERT_TRUE(s.feed(spool_channel::out, "done\npartial").is_ok());
  EXPECT_EQ(content(log), "[stdout] done\n");
  ASSERT_TRUE(s.finish(spool_channel::out).is_ok());
  ASSERT_TRUE(s.finish(spool_channel::err).is_ok()); // nothing pending: nothing written
  EXPECT_EQ(content(log), "[stdout] done\n[stdout] partial\n");
  EXPECT_EQ(s.counts().lines, 2u);
}

TEST(stream_spool, a_long_line_keeps_its_first_cap_bytes_and_counts_the_rest) {
  test::temp_dir dir;
  auto log = dir.path() / "stream.log";
  auto s = make(log, {}, 10);
  // The long line arrives in pieces; reading resumes at the next line.
  ASSERT_TRUE(s.feed(spool_channel::out, "0123456").is_ok());
  ASSERT_TRUE(s.feed(spool_channel::out, "789ABC").is_ok());
  ASSERT_TRUE(s.feed(spool_channel::out, "DEF\nnext\n0123456789\n").is_ok());
  ASSERT_TRUE(s.feed(spool_channel::err, "abcdefghijklmnop").is_ok());
  ASSERT_TRUE(s.finish(spool_channel::err).is_ok());
  EXPECT_EQ(content(log), "[stdout] 0123456789 [line cut: 6 bytes dropped]\n"
                          "[stdout] next\n"
                          "[stdout] 0123456789\n" // exactly the cap: whole
                          "[stderr] abcdefghij [line cut: 6 bytes dropped]\n");
  EXPECT_EQ(s.counts().dropped_line_bytes, 12u);
  EXPECT_EQ(s.counts().lines, 4u);
}

TEST(stream_spool, past_the_head_the_newest_tail_rotates_in_two_segments_as_line_file_does) {
  test::temp_dir dir;
  auto log = dir.path() / "stream.log";
  auto s = make(log, {100, 100});
  for (int i = 0; i < 20; ++i) // 20 bytes each: 5 lines fill the head
    ASSERT_TRUE(s.feed(spool_channel::out, numbered(i) + "\n").is_ok());

  std::string head;
  for (int i = 0; i < 5; ++i)
    head += spooled(i);
  head += "[agent-dispatch: the first 100 bytes of this log end here; of the rest the newest 100 "
          "bytes are kept, and a line says what was cut]\n";
  EXPECT_EQ(content(log), head);
  // Segments of at most 50 bytes: [5,6] [7,8] ... [17,18] [19].
  EXPECT_EQ(content(spool_segment_path(log, 1)), spooled(17) + spooled(18));
  EXPECT_EQ(content(spool_segment_path(log, 0)), spooled(19));
  const stream_counts& c = s.counts();
  EXPECT_EQ(c.lines, 20u);
  EXPECT_EQ(c.bytes, 400u);
  EXPECT_EQ(c.cut_lines, 12u); // lines 5 to 16
  EXPECT_EQ(c.cut_bytes, 240u);

  auto index = read_spool_index(log);
  ASSERT_TRUE(index.is_ok()) << index.error().to_string();
  ASSERT_TRUE(index->has_value());
  const spool_index& idx = **index;
  EXPECT_EQ(idx.newest, (spool_segment_start{inode_of(spool_segment_path(log, 0)), 280, 14}));
  ASSERT_TRUE(idx.older.has_value());
  EXPECT_EQ(*idx.older, (spool_segment_start{inode_of(spool_segment_path(log, 1)), 240, 12}));
}

TEST(stream_spool, a_line_that_fits_the_head_exactly_stays_in_it) {
  test::temp_dir dir;
  auto log = dir.path() / "stream.log";
  auto s = make(log, {100, 100});
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(s.feed(spool_channel::out, numbered(i) + "\n").is_ok());
  EXPECT_EQ(content(log).size(), 100u);
  EXPECT_FALSE(fs::exists(spool_segment_path(log, 0)));
  ASSERT_TRUE(s.feed(spool_channel::out, numbered(5) + "\n").is_ok());
  EXPECT_EQ(content(spool_segment_path(log, 0)), spooled(5));
  EXPECT_FALSE(fs::exists(spool_index_path(log))); // no rotation yet
}

TEST(stream_spool, without_a_head_limit_every_line_stays_in_the_log) {
  test::temp_dir dir;
  auto log = dir.path() / "stream.log";
  auto s = make(log, {0, 100});
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(s.feed(spool_channel::out, numbered(i) + "\n").is_ok());
  EXPECT_EQ(content(log).size(), 2000u);
  EXPECT_FALSE(fs::exists(spool_segment_path(log, 0)));
}

TEST(stream_spool, create_removes_the_segments_and_index_of_an_earlier_spool) {
  test::temp_dir dir;
  auto log = dir.path() / "stream.log";
  dir.write("stream.log.tail", "old\n");
  dir.write("stream.log.tail.1", "older\n");
  dir.write("stream.log.tail.index", "{}");
  auto s = make(log);
  EXPECT_FALSE(fs::exists(spool_segment_path(log, 0)));
  EXPECT_FALSE(fs::exists(spool_segment_path(log, 1)));
  EXPECT_FALSE(fs::exists(spool_index_path(log)));
}

TEST(stream_spool, a_line_that_cannot_be_written_is_counted_and_the_next_is_tried) {
  test::temp_dir dir;
  auto log = dir.path() / "stream.log";
  fs::create_symlink("/dev/full", log); // every write fails with ENOSPC
  auto s = make(log);
  auto st = s.feed(spool_channel::out, "one\ntwo\n");
  EXPECT_TRUE(st.is_io_error()) << st.to_string();
  EXPECT_NE(st.message().find("stream.log"), std::string::npos) << st.message();
  EXPECT_EQ(s.counts().write_failures, 2u);
  EXPECT_EQ(s.counts().lines, 0u);
}

TEST(stream_spool, create_fails_naming_the_path_when_the_folder_is_missing) {
  test::temp_dir dir;
  auto s = stream_spool::create(dir.path() / "missing" / "stream.log", {});
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.error().message().find("missing/stream.log"), std::string::npos) << s.error().message();
}

} // namespace
} // namespace ad::runtime
