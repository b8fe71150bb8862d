// line_file retention: the head and the newest tail of a chatty agent's log
// are kept, the cut is marked and counted, and the tail is readable while
// the attempt runs and inside the file once it is sealed.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/attempt/attempt_files.hpp"
#include "runtime/core/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

std::string numbered(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "line-%04d", i); // 9 bytes, 10 with '\n'
  return buf;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

std::string content(const fs::path& p) {
  auto t = read_file(p);
  return t.is_ok() ? *t : std::string{};
}

TEST(line_file, without_retention_every_line_is_kept) {
  test::temp_dir dir;
  auto f = line_file::create(dir.path() / "all.log");
  ASSERT_TRUE(f.is_ok());
  for (int i = 0; i < 1000; ++i)
    ASSERT_TRUE(f->append_line(numbered(i)).is_ok());
  ASSERT_TRUE(f->seal().is_ok());
  auto lines = lines_of(content(dir.path() / "all.log"));
  ASSERT_EQ(lines.size(), 1000u);
  EXPECT_EQ(lines.back(), numbered(999));
  EXPECT_FALSE(fs::exists(tail_segment(dir.path() / "all.log", 0)));
}

TEST(line_file, a_log_under_its_head_is_left_as_written) {
  test::temp_dir dir;
  auto path = dir.path() / "small.log";
  auto f = line_file::create(path, {100, 100});
  ASSERT_TRUE(f.is_ok());
  for (int i = 0; i < 10; ++i) // exactly the head: 10 lines of 10 bytes
    ASSERT_TRUE(f->append_line(numbered(i)).is_ok());
  ASSERT_TRUE(f->seal().is_ok());
  EXPECT_EQ(lines_of(content(path)).size(), 10u);
  EXPECT_EQ(f->cut_lines(), 0u);
  EXPECT_FALSE(fs::exists(tail_segment(path, 0)));
}

TEST(line_file, past_the_head_only_the_newest_tail_is_kept_and_the_cut_is_marked) {
  test::temp_dir dir;
  auto path = dir.path() / "stream.log";
  auto f = line_file::create(path, {100, 100});
  ASSERT_TRUE(f.is_ok());
  for (int i = 0; i < 1000; ++i)
    ASSERT_TRUE(f->append_line(numbered(i)).is_ok());

  // While the attempt runs: the head and a marker in the file, the newest
  // lines in at most two segments of half the tail each.
  auto running = lines_of(content(path));
  ASSERT_EQ(running.size(), 11u);
  EXPECT_EQ(running[9], numbered(9));
  EXPECT_NE(running[10].find("the first 100 bytes of this log end here"), std::string::npos);
  EXPECT_LE(fs::file_size(tail_segment(path, 0)), 50u);
  EXPECT_LE(fs::file_size(tail_segment(path, 1)), 50u);
  auto tail = log_tail(path, 30, 30);
  EXPECT_NE(tail.find(numbered(999)), std::string::npos) << tail;

  // Sealed: head, marker, the count of what was cut, the kept tail.
  ASSERT_TRUE(f->seal().is_ok());
  EXPECT_FALSE(fs::exists(tail_segment(path, 0)));
  EXPECT_FALSE(fs::exists(tail_segment(path, 1)));
  auto sealed = lines_of(content(path));
  ASSERT_GE(sealed.size(), 13u);
  EXPECT_EQ(sealed.back(), numbered(999));
  uint64_t kept_tail = sealed.size() - 12; // head 10, two marker lines
  EXPECT_EQ(f->cut_lines() + kept_tail + 10, 1000u);
  EXPECT_EQ(f->cut_bytes(), f->cut_lines() * 10);
  EXPECT_EQ(sealed[11], "[agent-dispatch: " + std::to_string(f->cut_lines()) + " lines (" +
                          std::to_string(f->cut_bytes()) + " bytes) cut here]");
  // The kept tail is contiguous and ends at the last line.
  for (std::size_t i = 12; i < sealed.size(); ++i)
    EXPECT_EQ(sealed[i], numbered(static_cast<int>(1000 - sealed.size() + i)));
  EXPECT_LE(fs::file_size(path), 100u + 100u + 200u);
  ASSERT_TRUE(f->seal().is_ok()); // idempotent
  EXPECT_EQ(lines_of(content(path)).size(), sealed.size());
}

TEST(line_file, disk_use_stays_bounded_however_much_is_written) {
  test::temp_dir dir;
  auto path = dir.path() / "stream.log";
  auto f = line_file::create(path, {4096, 4096});
  ASSERT_TRUE(f.is_ok());
  std::string line(99, 'x');
  for (int i = 0; i < 100000; ++i) { // 10 MB
    ASSERT_TRUE(f->append_line(line).is_ok());
    if (i % 10000 == 0) {
      uintmax_t total = fs::file_size(path);
      for (int age : {0, 1})
        if (fs::exists(tail_segment(path, age)))
          total += fs::file_size(tail_segment(path, age));
      EXPECT_LE(total, 4096u + 4096u + 200u);
    }
  }
  ASSERT_TRUE(f->seal().is_ok());
  EXPECT_LE(fs::file_size(path), 4096u + 4096u + 200u);
}

} // namespace
} // namespace ad::runtime
