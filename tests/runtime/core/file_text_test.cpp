#include "runtime/core/file_text.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "runtime/core/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

// A mapped file reads as read_file reads it, and keeps the bytes it mapped
// when the file is replaced by a rename (the way the snapshot is written).
TEST(file_text, a_mapped_file_reads_its_bytes_and_keeps_them_when_replaced) {
  test::temp_dir dir;
  std::string bytes = std::string(10000, 'a') + "\n{\"x\":1}\n";
  auto path = dir.write("state.json", bytes);
  auto mapped = file_text::map(path, 1u << 20);
  ASSERT_TRUE(mapped) << mapped.error().to_string();
  EXPECT_EQ(mapped->view(), *read_file(path));
  EXPECT_EQ(mapped->size(), bytes.size());
  ASSERT_TRUE(write_file_atomic(path, "new"));
  EXPECT_EQ(mapped->view(), bytes);
  // Moved, the mapping goes with it and is unmapped once.
  file_text moved = std::move(*mapped);
  EXPECT_EQ(moved.view(), bytes);
  EXPECT_TRUE(mapped->empty());
  auto again = file_text::map(path, 1u << 20);
  ASSERT_TRUE(again);
  moved = std::move(*again);
  EXPECT_EQ(moved.view(), "new");
}

TEST(file_text, refuses_what_read_file_refuses_and_maps_an_empty_file_as_empty) {
  test::temp_dir dir;
  auto empty = dir.write("empty", "");
  auto mapped = file_text::map(empty, 10);
  ASSERT_TRUE(mapped);
  EXPECT_TRUE(mapped->empty());
  auto big = dir.write("big", std::string(100, 'x'));
  auto refused = file_text::map(big, 10);
  ASSERT_FALSE(refused);
  EXPECT_TRUE(refused.error().is_invalid_argument());
  EXPECT_NE(refused.error().message().find(big.string()), std::string::npos);
  EXPECT_TRUE(file_text::map(dir.path() / "none", 10).error().is_not_found());
  fs::create_directory(dir.path() / "sub");
  EXPECT_TRUE(file_text::map(dir.path() / "sub", 10).error().is_invalid_argument());
  EXPECT_EQ(file_text(std::string("owned")).view(), "owned");
}

// `padding` bytes past the end are readable: for a file of whole pages the
// bytes past its last page, and for a text held in memory its string's
// spare room. A read past a file's last page would end the process.
TEST(file_text, the_padding_past_the_end_can_be_read) {
  test::temp_dir dir;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  for (std::size_t size : {page, 2 * page, page - 1, page - file_text::padding, std::size_t{1}}) {
    auto path = dir.write("state.json", std::string(size, 'x'));
    auto mapped = file_text::map(path, 1u << 20);
    ASSERT_TRUE(mapped) << mapped.error().to_string();
    ASSERT_EQ(mapped->size(), size);
    const volatile char* end = mapped->view().data() + size;
    for (std::size_t i = 0; i < file_text::padding; ++i)
      EXPECT_EQ(end[i], '\0') << size << " " << i;  // the kernel's zeros
  }
  for (std::size_t size : {std::size_t{1}, std::size_t{15}, std::size_t{1000}}) {
    file_text owned(std::string(size, 'y'));
    EXPECT_EQ(owned.view(), std::string(size, 'y'));
    const volatile char* end = owned.view().data() + size;
    for (std::size_t i = 0; i < file_text::padding; ++i)
      (void) end[i];  // within the string's own allocation (ASan checks it)
  }
}

} // namespace
} // namespace ad::runtime
