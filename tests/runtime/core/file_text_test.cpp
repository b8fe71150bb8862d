#include "runtime/core/file_text.hpp"

#include <gtest/gtest.h>

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

} // namespace
} // namespace ad::runtime
