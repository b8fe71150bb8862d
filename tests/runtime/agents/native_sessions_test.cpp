#include "runtime/agents/native_sessions.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

TEST(native_sessions, claude_project_folder_escapes_every_non_alphanumeric_byte) {
  EXPECT_EQ(claude_project_dir_name("/home/u/my_repo.git"), "-home-u-my-repo-git");
  EXPECT_EQ(claude_session_path(claude_projects_root("/home/u", ""), "/work/a b",
                                "5d3f3c1e-6b7a-4c8e-9f10-2a3b4c5d6e7f"),
            fs::path("/home/u/.claude/projects/-work-a-b/5d3f3c1e-6b7a-4c8e-9f10-2a3b4c5d6e7f.jsonl"));
}

TEST(native_sessions, claude_config_dir_moves_the_projects_folder) {
  EXPECT_EQ(claude_projects_root("/home/u", "/etc/claude-cfg"), fs::path("/etc/claude-cfg/projects"));
  EXPECT_EQ(claude_projects_root("/home/u", ""), fs::path("/home/u/.claude/projects"));
}

TEST(native_sessions, claude_hashes_a_long_path_into_its_folder_name) {
  // Observed with Claude Code 2.1.332 for this 278-character workspace.
  std::string ws =
    "/tmp/probe/long-workspace-path/segment-one-segment-one-segment-one-segment-one-segment-one-/"
    "segment_two.segment_two.segment_two.segment_two.segment_two./Segment Three Segment Three "
    "Segment Three Segment Three /deep-folder-for-the-task-"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/ws";
  EXPECT_EQ(claude_project_folder(ws),
            "-tmp-probe-long-workspace-path-segment-one-segment-one-segment-one-segment-one-"
            "segment-one--segment-two-segment-two-segment-two-segment-two-segment-two--Segment-"
            "Three-Segment-Three-Segment-Three-Segme-dr0zy");
  EXPECT_EQ(claude_project_folder("/home/u/repo"), "-home-u-repo");
  EXPECT_EQ(claude_session_path("/p", ws, "id").parent_path().filename().string(),
            claude_project_folder(ws));
}

TEST(native_sessions, a_long_workspace_path_is_found_under_claudes_cut_folder_name) {
  test::temp_dir tmp;
  std::string ws = "/work/" + std::string(240, 'a') + "/repo";
  std::string full = claude_project_dir_name(ws);
  ASSERT_GT(full.size(), claude_project_name_limit);
  std::string id = "5d3f3c1e-6b7a-4c8e-9f10-2a3b4c5d6e7f";
  fs::path projects = tmp.path() / "projects";
  // claude keeps the first 200 bytes and appends a hash of the path.
  fs::path folder = projects / (full.substr(0, claude_project_name_limit) + "-1x2y3z");
  fs::create_directories(folder);
  fs::create_directories(projects / (full.substr(0, claude_project_name_limit) + "-other"));
  std::ofstream(folder / (id + ".jsonl")) << "{}\n";
  auto found = find_claude_session(projects, ws, id);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, folder / (id + ".jsonl"));
  EXPECT_FALSE(find_claude_session(projects, ws, "00000000-0000-0000-0000-000000000000"));
  // A short path is looked up directly.
  fs::create_directories(projects / "-w");
  std::ofstream(projects / "-w" / (id + ".jsonl")) << "{}\n";
  EXPECT_EQ(find_claude_session(projects, "/w", id), projects / "-w" / (id + ".jsonl"));
}

TEST(native_sessions, codex_day_folders_cover_the_run_with_a_day_of_margin) {
  millis start = *parse_utc_iso("2026-11-29T23:30:00Z");
  millis end = *parse_utc_iso("2026-11-30T00:10:00Z");
  auto dirs = codex_day_dirs("/h/.codex", start, end);
  std::vector<fs::path> expected = {"/h/.codex/sessions/2026/11/28", "/h/.codex/sessions/2026/11/29",
                                    "/h/.codex/sessions/2026/11/30", "/h/.codex/sessions/2026/12/01"};
  // CODEX_HOME replaces <home>/.codex.
  EXPECT_EQ(codex_day_dirs("/srv/codex", start, start).front(),
            fs::path("/srv/codex/sessions/2026/11/28"));
  EXPECT_EQ(dirs, expected);
}

TEST(native_sessions, codex_rollout_is_matched_by_thread_id_suffix) {
  std::vector<file_entry> files = {
    {"/d/rollout-2026-11-29T13-00-00-0199a213-81c0-7800-8aa1-000000000000.jsonl", 1},
    {"/d/rollout-2026-11-29T13-05-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl", 2},
    {"/d/notes-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl", 3},
  };
  EXPECT_EQ(find_codex_rollout(files, "0199a213-81c0-7800-8aa1-bbab2a035a53"),
            fs::path("/d/rollout-2026-11-29T13-05-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl"));
  EXPECT_FALSE(find_codex_rollout(files, "ffff"));
  EXPECT_FALSE(find_codex_rollout(files, ""));
}

TEST(native_sessions, pi_session_by_id_or_newest) {
  std::vector<file_entry> files = {
    {"/a/pi-sessions/2026-11-29T12-00-00-000Z_aaaa.jsonl", 10},
    {"/a/pi-sessions/2026-11-29T12-30-00-000Z_bbbb.jsonl", 30},
    {"/a/pi-sessions/notes.txt", 99},
  };
  EXPECT_EQ(find_pi_session(files, "aaaa"), fs::path("/a/pi-sessions/2026-11-29T12-00-00-000Z_aaaa.jsonl"));
  EXPECT_FALSE(find_pi_session(files, "cccc"));
  EXPECT_EQ(newest_jsonl(files), fs::path("/a/pi-sessions/2026-11-29T12-30-00-000Z_bbbb.jsonl"));
  EXPECT_FALSE(newest_jsonl({}));
}

TEST(native_sessions, agy_picks_the_newest_new_or_changed_conversation) {
  std::vector<file_entry> before = {{"/c/old.db", 100}, {"/c/touched.db", 100}};
  std::vector<file_entry> after = {{"/c/old.db", 100}, {"/c/touched.db", 250},
                                   {"/c/new.db", 200}, {"/c/new.db-wal", 900}};
  EXPECT_EQ(newest_changed_agy_conversation(before, after), fs::path("/c/touched.db"));
  EXPECT_FALSE(newest_changed_agy_conversation(before, before));
  EXPECT_EQ(agy_conversations_dir("/h"), fs::path("/h/.gemini/antigravity-cli/conversations"));
}

TEST(native_sessions, list_files_reads_one_folder) {
  test::temp_dir dir;
  dir.write("s/a.jsonl", "x");
  dir.write("s/b.txt", "x");
  dir.write("s/sub/c.jsonl", "x");
  auto files = list_files(dir.path() / "s", ".jsonl");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path.filename(), "a.jsonl");
  EXPECT_GT(files[0].mtime_ns, 0);
  EXPECT_EQ(list_files(dir.path() / "s", "").size(), 2u);
  EXPECT_TRUE(list_files(dir.path() / "missing", "").empty());
}

} // namespace
} // namespace ad::runtime
