#include "runtime/workspace/path_resolve.hpp"

#include <sys/stat.h>
#include <vector>

#include <thread>

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

// The typed answer says what lies at the resolved path, after symlinks, as
// a stat of it would: the same path as resolve_path, and the type.
TEST(path_resolve, the_typed_answer_names_what_lies_at_the_path) {
  test::temp_dir dir;
  auto root = fs::canonical(dir.path());
  dir.write("ws/src/a.cpp", "x");
  dir.write("ws/notes.txt", "x");
  fs::create_symlink(root / "ws/src/a.cpp", root / "ws/link.cpp");
  fs::create_symlink(root / "ws/src", root / "ws/srclink");
  fs::create_symlink(root / "ws/nowhere.cpp", root / "ws/dangling");
  ASSERT_EQ(::mkfifo((root / "ws/pipe").c_str(), 0600), 0);
  auto ws = root / "ws";
  struct expected {
    const char* claim;
    fs::path path;
    fs::file_type type;
  };
  for (const auto& e : std::vector<expected>{
         {"src/a.cpp", ws / "src/a.cpp", fs::file_type::regular},
         {"link.cpp", ws / "src/a.cpp", fs::file_type::regular},
         {"src", ws / "src", fs::file_type::directory},
         {"srclink", ws / "src", fs::file_type::directory},
         {"srclink/a.cpp", ws / "src/a.cpp", fs::file_type::regular},
         {"src/new/d.cpp", ws / "src/new/d.cpp", fs::file_type::not_found},
         {"notes.txt/x", ws / "notes.txt/x", fs::file_type::not_found},
         {"dangling", ws / "nowhere.cpp", fs::file_type::not_found},
         {"pipe", ws / "pipe", fs::file_type::fifo},
         {"src/..", ws, fs::file_type::directory},
         {"src/a.cpp/..", ws / "src", fs::file_type::directory},
         {"./src/.", ws / "src", fs::file_type::directory},
       }) {
    auto typed = resolve_typed_path(e.claim, ws);
    ASSERT_TRUE(typed.is_ok()) << e.claim;
    EXPECT_EQ(typed->path, e.path) << e.claim;
    EXPECT_EQ(typed->path, *resolve_path(e.claim, ws)) << e.claim;
    EXPECT_EQ(typed->type, e.type) << e.claim;
    EXPECT_EQ(typed->type, fs::status(typed->path).type()) << e.claim;
  }
}

// Paths resolved with one memo answer as they do alone; the memo keeps what
// a walk found at a folder (so a later walk of the batch does not look
// again) but follows a link each time.
TEST(path_resolve, a_walk_memo_answers_as_the_walks_do) {
  test::temp_dir dir;
  auto root = fs::canonical(dir.path());
  dir.write("ws/src/a.cpp", "x");
  dir.write("ws/lib/b.cpp", "x");
  fs::create_symlink(root / "ws/src", root / "ws/srclink");
  auto ws = root / "ws";
  path_walk_memo memo;
  for (const char* claim : {"src/a.cpp", "src/b.cpp", "srclink/a.cpp", "src/new/d.cpp",
                            "src/new/e.cpp", "gone/x.cpp", "gone/y.cpp", "src/a.cpp/..",
                            "lib/b.cpp"}) {
    auto alone = resolve_typed_path(claim, ws);
    auto with_memo = resolve_typed_path(claim, ws, &memo);
    ASSERT_TRUE(alone.is_ok() && with_memo.is_ok()) << claim;
    EXPECT_EQ(with_memo->path, alone->path) << claim;
    EXPECT_EQ(with_memo->type, alone->type) << claim;
  }

  fs::remove_all(ws / "src");
  fs::remove(ws / "srclink");
  fs::create_directory_symlink(ws / "lib", ws / "srclink");
  EXPECT_EQ(resolve_typed_path("src/a.cpp", ws, &memo)->type, fs::file_type::regular);
  EXPECT_EQ(resolve_typed_path("src/a.cpp", ws)->type, fs::file_type::not_found);
  EXPECT_EQ(resolve_typed_path("srclink/b.cpp", ws, &memo)->path, ws / "lib/b.cpp");
}

// One memo shared by threads walking at once (as a scan's folder readers
// share it) answers each as the walks alone do.
TEST(path_resolve, a_walk_memo_shared_by_threads_answers_as_the_walks_do) {
  test::temp_dir dir;
  auto root = fs::canonical(dir.path());
  for (int g = 0; g < 8; ++g)
    for (int f = 0; f < 8; f += 2)
      dir.write("ws/src/g" + std::to_string(g) + "/f" + std::to_string(f) + ".cpp", "x");
  auto ws = root / "ws";
  std::vector<std::string> claims;
  for (int g = 0; g < 10; ++g)
    for (int f = 0; f < 8; ++f)
      claims.push_back("src/g" + std::to_string(g) + "/f" + std::to_string(f) + ".cpp");
  path_walk_memo memo;
  // Each claim is walked by two threads; each thread keeps its own answers
  // (the memo is shared, the answers are not).
  constexpr int thread_count = 4;
  std::vector<std::vector<result<typed_path>>> answers(
    thread_count, std::vector<result<typed_path>>(claims.size(), status::internal("not walked")));
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < thread_count; ++t)
      threads.emplace_back([&, t] {
        for (std::size_t i = t % 2; i < claims.size(); i += 2)
          answers[t][i] = resolve_typed_path(claims[i], ws, &memo);
      });
    for (auto& t : threads)
      t.join();
  }
  for (std::size_t i = 0; i < claims.size(); ++i) {
    auto alone = resolve_typed_path(claims[i], ws);
    ASSERT_TRUE(alone.is_ok()) << claims[i];
    for (int t = static_cast<int>(i % 2); t < thread_count; t += 2) {
      const auto& shared = answers[t][i];
      ASSERT_TRUE(shared.is_ok()) << claims[i] << " by thread " << t;
      EXPECT_EQ(shared->path, alone->path) << claims[i] << " by thread " << t;
      EXPECT_EQ(shared->type, alone->type) << claims[i] << " by thread " << t;
    }
  }
}

} // namespace
} // namespace ad::runtime
