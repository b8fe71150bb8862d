#include "runtime/run/named_paths.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "runtime/agents/attempt_locator.hpp"
#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

millis mtime_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0);
  return static_cast<millis>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000;
}

// A locator of this work unit's attempt that ran from `from` to `to`.
void write_locator(const fs::path& runs, const std::string& identity, millis from, millis to) {
  attempt_locator l;
  l.identity = identity;
  l.task = "g/02+01_x";
  l.plan_number = 1;
  l.role = "worker";
  l.attempt = 1;
  l.cli = "codex";
  l.status = attempt_status::failed;
  l.started_at = from;
  l.finished_at = to;
  auto dir = runs / attempt_run_folder_name(from, identity);
  fs::create_directories(dir);
  ASSERT_TRUE(write_file_atomic(dir / "locator.json", dump_json(locator_to_json(l))).is_ok());
}

TEST(named_paths, what_is_known_of_a_file_the_error_names) {
  test::temp_dir tmp;
  fs::path ws = fs::canonical(tmp.path());
  // A completed predecessor whose PLAN claims src/shared.cpp.
  tmp.write("agent-task/archive/2026/11/g/01_base/PLAN-cloud-G05.md",
            "<!-- task=g/01_base plan=1 tag=t -->\n## Modified Files Summary\n"
            "| File | Change |\n|---|---|\n| `src/shared.cpp` | new |\n");
  tmp.write("agent-task/archive/2026/11/g/01_base/complete.log", "done\n");
  auto shared = tmp.write("src/shared.cpp", "int s;\n");
  auto mine = tmp.write("src/mine.cpp", "int m;\n");
  millis t = mtime_of(mine);
  fs::path runs = ws / "state/runs";
  write_locator(runs, "g__02__01_x__p1__worker__a01", t - 5000, t + 5000);
  write_locator(runs, "g__02__01_x__p1__worker__a02", t + 10000, t + 20000);
  write_locator(runs, "g__03_other__p1__worker__a01", t - 5000, t + 5000);

  named_path_query q;
  q.paths_as_written = {"src/mine.cpp", ws.string() + "/src/shared.cpp", "src/none.cpp"};
  q.workspace = ws;
  q.task_root = ws / "agent-task";
  q.task = "g/02+01_x";
  q.plan_number = 1;
  q.write_paths = {(ws / "src/mine.cpp").string()};
  q.runs_dir = runs;
  q.now = t + 30000;
  auto files = gather_named_files(q);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].path, (ws / "src/mine.cpp").string());
  EXPECT_EQ(files[0].as_written, "src/mine.cpp");
  EXPECT_TRUE(files[0].exists);
  EXPECT_TRUE(files[0].in_write_set);
  // Only this work unit's attempt whose run held the file's change.
  EXPECT_EQ(files[0].changed_by, std::vector<std::string>{"g__02__01_x__p1__worker__a01"});
  EXPECT_TRUE(files[0].predecessors.empty());
  EXPECT_TRUE(files[1].exists);
  EXPECT_FALSE(files[1].in_write_set);
  EXPECT_EQ(files[1].predecessors, std::vector<std::string>{"g/01_base"});
  EXPECT_FALSE(files[2].exists);
  EXPECT_TRUE(files[2].changed_by.empty());
  (void)shared;
}

} // namespace
} // namespace ad::runtime
