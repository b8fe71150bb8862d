#include "runtime/workspace/path_resolve.hpp"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

// Relative paths resolve from the (resolved) base: through symlinks below
// it, up through `..`, to where a dangling link points, and a loop is an
// error.
TEST(path_resolve, relative_paths_resolve_from_the_base) {
  test::temp_dir dir;
  auto root = fs::canonical(dir.path());
  dir.write("ws/src/a.cpp", "x");
  dir.write("outside/b.cpp", "x");
  fs::create_directory_symlink(root / "outside", root / "ws/out");
  fs::create_symlink(root / "nowhere/c.cpp", root / "ws/dangling");
  fs::create_symlink("loop2", root / "ws/loop1");
  fs::create_symlink("loop1", root / "ws/loop2");
  auto ws = root / "ws";

  EXPECT_EQ(*resolve_path("src/a.cpp", ws), ws / "src/a.cpp");
  EXPECT_EQ(*resolve_path("src/new/d.cpp", ws), ws / "src/new/d.cpp");
  EXPECT_EQ(*resolve_path("out/b.cpp", ws), root / "outside/b.cpp");
  EXPECT_EQ(*resolve_path("../outside/b.cpp", ws), root / "outside/b.cpp");
  EXPECT_EQ(*resolve_path("./src/../src/a.cpp", ws / ""), ws / "src/a.cpp");
  EXPECT_EQ(*resolve_path("dangling", ws), root / "nowhere/c.cpp");
  EXPECT_EQ(*resolve_path(ws / "out/b.cpp", "/"), root / "outside/b.cpp");
  auto loop = resolve_path("loop1/x", ws);
  ASSERT_FALSE(loop.is_ok());
  EXPECT_NE(loop.error().message().find("symlink loop"), std::string::npos);
  EXPECT_FALSE(is_within(*resolve_path("out/b.cpp", ws), ws));
  EXPECT_TRUE(is_within(*resolve_path("src/a.cpp", ws), ws));
}

} // namespace
} // namespace ad::runtime
