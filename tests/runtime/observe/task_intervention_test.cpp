#include "runtime/observe/task_intervention.hpp"

#include <gtest/gtest.h>

#include "runtime/state/durable_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

class task_intervention_test : public ::testing::Test {
protected:
  void SetUp() override {
    fs::create_directories(dir_.path() / "ws");
    id_ = *identify_workspace(dir_.path() / "ws");
    root_ = dir_.path() / "state";
  }
  void commit(std::vector<state_change> changes) {
    auto store = durable_store::open(root_, id_, posix_file_layer());
    ASSERT_TRUE(store) << store.error().to_string();
    auto r = (*store)->commit({std::move(changes)});
    ASSERT_TRUE(r);
    for (const auto& st : r->at(0).outcomes)
      ASSERT_TRUE(st) << st.to_string();
  }
  task_intervention_reader reader() {
    return task_intervention_reader(root_, id_.path, id_.id, "Before you start:");
  }

  ad::test::temp_dir dir_;
  workspace_identity id_;
  fs::path root_;
};

TEST_F(task_intervention_test, follows_the_state_from_a_fresh_root_to_a_match_and_its_clearing) {
  auto r = reader();
  EXPECT_TRUE(r.of("g/01_a").is_null()) << "no state root yet";

  intervention_context ctx;
  ctx.pattern_ids = {"file-already-exists"};
  ctx.instruction = "edit them in place, do not create them again";
  ctx.existing_files = {"/ws/src/a.cpp"};
  ctx.created_at = 1'800'000'000'000;  // 2027-01-15T08:00:00.000Z
  file_snapshot a_cpp;  // created by the first attempt
  a_cpp.path = "/ws/src/a.cpp";
  a_cpp.exists = true;
  a_cpp.size = 7;
  a_cpp.mtime = 1'800'000'000'000;
  commit({begin_work_unit{"g/01_a", "wu1"},
          record_write_set{"g/01_a", "g__01_a__p1__worker__a01", snapshot_phase::before, {}},
          record_write_set{"g/01_a", "g__01_a__p1__worker__a01", snapshot_phase::after, {a_cpp}},
          set_intervention{"g/01_a", ctx}});
  // The same reader: the root it saw fresh now holds a journal.
  auto j = r.of("g/01_a");
  ASSERT_TRUE(j.is_object()) << j.dump();
  EXPECT_EQ(j["pattern_ids"], json::array({"file-already-exists"}));
  EXPECT_EQ(j["created_at"], "2027-01-15T08:00:00.000Z");
  EXPECT_EQ(j["existing_files"][0]["path"], "/ws/src/a.cpp");
  EXPECT_EQ(j["existing_files"][0]["created_by"], json::array({"g__01_a__p1__worker__a01"}));
  auto prompt = j["prompt"].get<std::string>();
  EXPECT_EQ(prompt.rfind("Before you start:", 0), 0u) << prompt;
  EXPECT_NE(prompt.find("do not create them again"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("- /ws/src/a.cpp (created by g__01_a__p1__worker__a01)"), std::string::npos)
    << prompt;
  EXPECT_TRUE(r.of("g/02_b").is_null()) << "a task the state does not know";

  // A success clears it; the reader sees the journal grew.
  commit({clear_intervention{"g/01_a"}});
  EXPECT_TRUE(r.of("g/01_a").is_null());
}

} // namespace
} // namespace ad::runtime
