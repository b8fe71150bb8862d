#include "runtime/core/clock.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/hash.hpp"
#include "runtime/core/json.hpp"
#include "tests/support/temp_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

TEST(files, atomic_write_then_read_round_trips) {
  test::temp_dir dir;
  auto p = dir.path() / "state.json";
  ASSERT_TRUE(write_file_atomic(p, "{\"a\":1}"));
  auto text = read_file(p);
  ASSERT_TRUE(text.is_ok());
  EXPECT_EQ(*text, "{\"a\":1}");
  ASSERT_TRUE(write_file_atomic(p, "second"));
  EXPECT_EQ(*read_file(p), "second");
  // No temporary is left behind.
  int entries = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir.path()))
    ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(files, a_file_written_in_parts_replaces_only_when_every_part_was_written) {
  test::temp_dir dir;
  auto p = dir.path() / "state.json";
  ASSERT_TRUE(write_file_atomic(p, "old"));
  std::vector<std::string> parts{"{\"a\":", "1,", "\"b\":2}"};
  ASSERT_TRUE(write_file_atomic_in_parts(p, [&](const part_writer& write) {
    for (const auto& part : parts)
      if (auto st = write(part); !st)
        return st;
    return status::ok();
  }));
  EXPECT_EQ(*read_file(p), "{\"a\":1,\"b\":2}");

  // The producer fails after a part: the file keeps its content, no
  // temporary is left, and the producer's error is what comes back.
  auto st = write_file_atomic_in_parts(p, [&](const part_writer& write) {
    if (auto st = write("half"); !st)
      return st;
    return status::io_error("made up: the state could not be written");
  });
  ASSERT_FALSE(st);
  EXPECT_EQ(st.message(), "made up: the state could not be written");
  EXPECT_EQ(*read_file(p), "{\"a\":1,\"b\":2}");
  int entries = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir.path()))
    ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(files, read_refuses_files_over_the_cap_naming_the_path) {
  test::temp_dir dir;
  auto p = dir.write("big.md", std::string(100, 'x'));
  auto text = read_file(p, 10);
  ASSERT_FALSE(text.is_ok());
  EXPECT_TRUE(text.error().is_invalid_argument());
  EXPECT_NE(text.error().message().find("big.md"), std::string::npos);
  EXPECT_TRUE(read_file(dir.path() / "missing").error().is_not_found());
  EXPECT_TRUE(read_file(dir.path()).error().is_invalid_argument());
}

TEST(files, read_returns_every_byte_of_empty_small_exact_and_large_files) {
  test::temp_dir dir;
  EXPECT_EQ(*read_file(dir.write("empty", "")), "");
  EXPECT_EQ(*read_file(dir.write("one", "x")), "x");
  // A file exactly at the cap is read; one byte more is refused.
  EXPECT_EQ(*read_file(dir.write("cap", std::string(10, 'c')), 10), std::string(10, 'c'));
  EXPECT_FALSE(read_file(dir.write("over", std::string(11, 'c')), 10).is_ok());
  // Larger than any single read buffer, with a pattern that shows a lost or
  // repeated block.
  std::string large;
  for (int i = 0; large.size() < (300u << 10); ++i)
    large += std::to_string(i) + '\n';
  EXPECT_EQ(*read_file(dir.write("large", large)), large);
}

TEST(files, read_of_a_file_that_reports_no_size_reads_to_its_end) {
  // /proc files say size 0 and hand out their text a page or so per read.
  auto text = read_file("/proc/self/maps", 8u << 20);
  ASSERT_TRUE(text.is_ok()) << text.error().message();
  ASSERT_FALSE(text->empty());
  EXPECT_EQ(text->back(), '\n');
  EXPECT_NE(text->find("[stack]"), std::string::npos);
}

// read_file_at opens the file by name in the folder held open, so it reads
// the folder the descriptor holds even after the folder was renamed; what it
// refuses it refuses as read_file does, naming the path it was given.
TEST(files, read_at_reads_in_the_folder_held_open) {
  test::temp_dir dir;
  auto plan = dir.write("task/PLAN.md", "plan text");
  dir.write("task/big.md", std::string(100, 'x'));
  fs::create_directory(dir.path() / "task/sub");
  int folder = ::open((dir.path() / "task").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(folder, 0);
  EXPECT_EQ(*read_file_at(folder, plan), "plan text");
  fs::rename(dir.path() / "task", dir.path() / "moved");
  EXPECT_EQ(*read_file_at(folder, plan), "plan text");
  EXPECT_TRUE(read_file(plan).error().is_not_found());
  auto big = read_file_at(folder, dir.path() / "task/big.md", 10);
  ASSERT_FALSE(big.is_ok());
  EXPECT_NE(big.error().message().find((dir.path() / "task/big.md").string()), std::string::npos);
  EXPECT_TRUE(read_file_at(folder, dir.path() / "task/none").error().is_not_found());
  EXPECT_TRUE(read_file_at(folder, dir.path() / "task/sub").error().is_invalid_argument());
  ::close(folder);
}

// read_listed_file_at gives what read_file_at gives, whatever the file
// turned out to be: small and large files whole, an empty one empty, the
// cap's refusal, a link followed, a FIFO, a folder and a missing file
// refused in read_file_at's words.
TEST(files, read_listed_at_reads_as_read_at_does) {
  test::temp_dir dir;
  std::string large;
  for (int i = 0; large.size() < (40u << 10); ++i)
    large += std::to_string(i) + '\n';
  auto small = dir.write("task/PLAN.md", "plan text");
  auto big = dir.write("task/big.md", large);
  auto empty = dir.write("task/empty.md", "");
  auto capped = dir.write("task/capped.md", std::string(100, 'x'));
  fs::create_symlink("PLAN.md", dir.path() / "task/link.md");
  fs::create_directory(dir.path() / "task/sub");
  auto fifo = dir.path() / "task/fifo.md";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  int folder = ::open((dir.path() / "task").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(folder, 0);
  EXPECT_EQ(*read_listed_file_at(folder, small), "plan text");
  EXPECT_EQ(*read_listed_file_at(folder, big), large);
  EXPECT_EQ(*read_listed_file_at(folder, empty), "");
  EXPECT_EQ(*read_listed_file_at(folder, dir.path() / "task/link.md"), "plan text");
  for (const auto& refused : {capped, dir.path() / "task/sub", fifo, dir.path() / "task/none"}) {
    std::size_t cap = refused == capped ? 10 : 1000;
    auto listed = read_listed_file_at(folder, refused, cap);
    auto plain = read_file_at(folder, refused, cap);
    ASSERT_FALSE(listed.is_ok()) << refused;
    ASSERT_FALSE(plain.is_ok()) << refused;
    EXPECT_EQ(listed.error().message(), plain.error().message());
    EXPECT_EQ(listed.error().get_code(), plain.error().get_code());
  }
  ::close(folder);
}

TEST(hash, sha256_matches_known_vectors) {
  EXPECT_EQ(sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  test::temp_dir dir;
  auto p = dir.write("f", "abc");
  EXPECT_EQ(*sha256_file_hex(p), sha256_hex("abc"));
}

TEST(clock, iso_format_round_trips) {
  millis t = 1795000000123;
  auto text = format_utc_iso(t);
  EXPECT_EQ(text, "2026-11-18T11:06:40.123Z");
  EXPECT_EQ(*parse_utc_iso(text), t);
  EXPECT_EQ(*parse_utc_iso("2026-11-18T20:06:40+09:00"), 1795000000000);
  EXPECT_FALSE(parse_utc_iso("yesterday").is_ok());
  EXPECT_EQ(format_utc_stamp(t), "20261118T110640Z");
}

TEST(json, parse_errors_name_source_and_offset) {
  auto bad = parse_json("{\"a\": }", "policy.json");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message().find("policy.json"), std::string::npos);
  EXPECT_NE(bad.error().message().find("byte 7"), std::string::npos);
  EXPECT_EQ((*parse_json("[1,2]", "x")).size(), 2u);
  EXPECT_EQ(dump_json(json("a\xff")), "\"a\xef\xbf\xbd\"");
}

} // namespace
} // namespace ad::runtime
