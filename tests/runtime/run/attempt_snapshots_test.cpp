#include "runtime/run/attempt_snapshots.hpp"

#include <gtest/gtest.h>

#include "runtime/policy/tactical.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

TEST(attempt_snapshots, before_and_after_an_attempt_give_its_created_and_modified_files) {
  test::temp_dir dir;
  auto kept = dir.write("src/kept.cpp", "old\n").string();
  auto changed = dir.write("src/changed.cpp", "old\n").string();
  auto created = (dir.path() / "src/new.cpp").string();
  std::vector<std::string> paths{kept, changed, created};

  auto before = snapshot_write_set("g/01_a", "g__01_a__p1__worker__a01", snapshot_phase::before, paths);
  dir.write("src/changed.cpp", "new and longer\n");
  dir.write("src/new.cpp", "fresh\n");
  auto after = snapshot_write_set("g/01_a", "g__01_a__p1__worker__a01", snapshot_phase::after, paths);

  const auto& b = std::get<record_write_set>(before);
  const auto& a = std::get<record_write_set>(after);
  EXPECT_EQ(b.task, "g/01_a");
  EXPECT_EQ(b.attempt_id, "g__01_a__p1__worker__a01");
  EXPECT_EQ(b.phase, snapshot_phase::before);
  EXPECT_EQ(a.phase, snapshot_phase::after);
  ASSERT_EQ(b.files.size(), 3u);
  EXPECT_TRUE(b.files[0].exists);
  EXPECT_FALSE(b.files[2].exists);
  EXPECT_FALSE(a.files[1].hash.empty());

  auto d = diff_write_set(b.files, a.files);
  EXPECT_EQ(d.created, std::vector<std::string>{created});
  EXPECT_EQ(d.modified, std::vector<std::string>{changed});
  EXPECT_TRUE(d.deleted.empty());
  EXPECT_EQ(current_write_set(paths), a.files);

  // Applied to the state, the history names the attempt that made each file.
  state_model model;
  model.tasks["g/01_a"].work_unit_id = "g/01_a::plan-1::tag-t";
  ASSERT_TRUE(apply_change(model, before).is_ok());
  ASSERT_TRUE(apply_change(model, after).is_ok());
  intervention_context ctx;
  ctx.existing_files = {created, changed};
  auto view = view_intervention(ctx, model.tasks["g/01_a"].write_sets);
  ASSERT_EQ(view.existing_files.size(), 2u);
  EXPECT_EQ(view.existing_files[0].created_by, std::vector<std::string>{"g__01_a__p1__worker__a01"});
  EXPECT_EQ(view.existing_files[1].modified_by, std::vector<std::string>{"g__01_a__p1__worker__a01"});
}

} // namespace
} // namespace ad::runtime
