// Sealing a spool the keeper left: the kept tail moves into the log after
// a line counting the cut, exactly as line_file::seal leaves it, and a seal
// cut short at any point is completed by running it again.

#include "runtime/keeper/stream_seal.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include "runtime/keeper/keeper_files.hpp"
#include "runtime/keeper/stream_spool.hpp"
#include "tests/runtime/keeper/spool_test_support.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;
using spool_test::content;
using spool_test::numbered;
using spool_test::spooled;

const std::string head_end = "[agent-dispatch: the first 100 bytes of this log end here; of the rest the "
                             "newest 100 bytes are kept, and a line says what was cut]\n";

// Writes lines 0..n-1 with 100 bytes of head and of tail (20-byte lines).
stream_counts write_spool(const fs::path& log, int n) {
  auto s = stream_spool::create(log, {100, 100});
  EXPECT_TRUE(s.is_ok());
  for (int i = 0; i < n; ++i)
    EXPECT_TRUE(s->feed(spool_channel::out, numbered(i) + "\n").is_ok());
  return s->counts();
}

std::string lines(int from, int to) {
  std::string out;
  for (int i = from; i < to; ++i)
    out += spooled(i);
  return out;
}

TEST(seal_stream, appends_the_kept_tail_after_a_line_counting_the_cut_and_removes_the_segments) {
  test::temp_dir dir;
  auto log = dir.path() / keeper_stream_file;
  stream_counts c = write_spool(log, 20); // kept: [17,18] [19]; cut: 5..16
  ASSERT_TRUE(seal_stream(log, c.cut_lines, c.cut_bytes).is_ok());
  const std::string sealed =
    lines(0, 5) + head_end + "[agent-dispatch: 12 lines (240 bytes) cut here]\n" + lines(17, 20);
  EXPECT_EQ(content(log), sealed);
  for (const auto& p : {spool_segment_path(log, 0), spool_segment_path(log, 1), spool_index_path(log)})
    EXPECT_FALSE(fs::exists(p)) << p;
  // Idempotent.
  ASSERT_TRUE(seal_stream(log, c.cut_lines, c.cut_bytes).is_ok());
  EXPECT_EQ(content(log), sealed);
}

TEST(seal_stream, without_a_cut_there_is_no_cut_line) {
  test::temp_dir dir;
  auto log = dir.path() / keeper_stream_file;
  stream_counts c = write_spool(log, 8); // head 0-4, [5,6] [7]
  ASSERT_EQ(c.cut_lines, 0u);
  ASSERT_TRUE(seal_stream(log, 0, 0).is_ok());
  EXPECT_EQ(content(log), lines(0, 5) + head_end + lines(5, 8));
}

TEST(seal_stream, a_spool_that_never_passed_its_head_is_left_as_it_is) {
  test::temp_dir dir;
  auto log = dir.path() / keeper_stream_file;
  write_spool(log, 3);
  ASSERT_TRUE(seal_stream(log, 0, 0).is_ok());
  EXPECT_EQ(content(log), lines(0, 3));
}

TEST(seal_stream, a_copy_cut_short_is_made_again) {
  test::temp_dir dir;
  auto log = dir.path() / keeper_stream_file;
  stream_counts c = write_spool(log, 20);
  // A seal that died while copying: the cut line and part of the older segment.
  {
    auto f = ::open(log.c_str(), O_WRONLY | O_APPEND);
    std::string partial = "[agent-dispatch: 12 lines (240 bytes) cut here]\n" + spooled(17).substr(0, 7);
    ASSERT_EQ(::write(f, partial.data(), partial.size()), static_cast<ssize_t>(partial.size()));
    ::close(f);
  }
  ASSERT_TRUE(seal_stream(log, c.cut_lines, c.cut_bytes).is_ok());
  EXPECT_EQ(content(log), lines(0, 5) + head_end + "[agent-dispatch: 12 lines (240 bytes) cut here]\n" +
                            lines(17, 20));
}

TEST(seal_stream, a_complete_copy_whose_segments_were_partly_removed_is_only_finished) {
  test::temp_dir dir;
  auto log = dir.path() / keeper_stream_file;
  stream_counts c = write_spool(log, 20);
  std::string sealed = lines(0, 5) + head_end + "[agent-dispatch: 12 lines (240 bytes) cut here]\n" + lines(17, 20);
  // The copy was synced and the older segment removed; then the seal died.
  dir.write("stream.log", sealed);
  fs::remove(spool_segment_path(log, 1));
  ASSERT_TRUE(seal_stream(log, c.cut_lines, c.cut_bytes).is_ok());
  EXPECT_EQ(content(log), sealed);
  EXPECT_FALSE(fs::exists(spool_segment_path(log, 0)));
}

TEST(seal_stream, segments_beside_a_log_without_a_head_end_line_are_corruption) {
  test::temp_dir dir;
  auto log = dir.write("stream.log", "[stdout] a\n");
  dir.write("stream.log.tail", "[stdout] b\n");
  auto st = seal_stream(log, 0, 0);
  EXPECT_TRUE(st.is_corruption()) << st.to_string();
  EXPECT_NE(st.message().find("stream.log"), std::string::npos);
  EXPECT_TRUE(fs::exists(spool_segment_path(log, 0))) << "nothing is removed";
}

} // namespace
} // namespace ad::runtime
