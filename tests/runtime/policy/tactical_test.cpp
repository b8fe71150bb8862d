#include "runtime/policy/tactical.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

std::vector<tactical_pattern> defaults() {
  auto pol = parse_policy(default_policy_json(), "d");
  EXPECT_TRUE(pol.is_ok());
  return pol ? pol->tactical_patterns : std::vector<tactical_pattern>{};
}

struct match_row {
  const char* line;
  const char* where; // evidence | diagnostic | tail
  const char* expected; // "" = no match
};

TEST(analyse_tactical, default_patterns_match_evidence_diagnostics_and_stream_tail) {
  auto patterns = defaults();
  const match_row rows[] = {
    {"Error: File already exists: src/task_tracker/exceptions.py", "evidence", "file-already-exists"},
    {"FileExistsError: [Errno 17] File exists: 'a.py'", "diagnostic", "file-already-exists"},
    {"open(b.py): No such file or directory", "tail", "file-not-found"},
    {"FileNotFoundError: missing.txt", "evidence", "file-not-found"},
    {"write /ws/x: permission denied", "diagnostic", "permission-denied"},
    {"EACCES while writing", "tail", "permission-denied"},
    {"rate limit exceeded", "evidence", ""},
  };
  for (const auto& r : rows) {
    tactical_input in;
    std::string w = r.where;
    if (w == "evidence")
      in.evidence = r.line;
    else if (w == "diagnostic")
      in.diagnostics = {"unrelated", r.line};
    else
      in.stream_tail = {r.line, "[stdout] done"};
    auto a = analyse_tactical(patterns, in);
    ASSERT_GE(a.events.size(), 2u);
    EXPECT_EQ(a.events[0].kind, "attempt_failed");
    EXPECT_EQ(a.events[0].message, "attempt failed, analysing");
    if (std::string(r.expected).empty()) {
      EXPECT_TRUE(a.matched_ids.empty()) << r.line;
      EXPECT_EQ(a.events[1].kind, "no_match");
      EXPECT_EQ(a.events[1].message, "no tactical pattern matched");
    } else {
      EXPECT_EQ(a.matched_ids, std::vector<std::string>{r.expected}) << r.line;
      EXPECT_EQ(a.events[1].kind, "matched");
      EXPECT_EQ(a.events[1].message, std::string("matched: [") + r.expected + "]");
      EXPECT_EQ(a.matched_line, r.line);
      EXPECT_FALSE(a.instructions[0].empty());
    }
  }
}

TEST(tactical_event_json, reads_back_as_written_and_names_a_bad_member) {
  tactical_event e{"matched", "matched", {"eexist", "lock"}, "error: EEXIST: a.txt"};
  auto back = tactical_event_from_json(to_json(e));
  ASSERT_TRUE(back.is_ok()) << back.error().message();
  EXPECT_EQ(back->kind, e.kind);
  EXPECT_EQ(back->message, e.message);
  EXPECT_EQ(back->pattern_ids, e.pattern_ids);
  EXPECT_EQ(back->matched_line, e.matched_line);
  auto j = to_json(e);
  j["pattern_ids"] = "eexist";
  auto bad = tactical_event_from_json(j);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.error().message().find("pattern_ids"), std::string::npos) << bad.error().message();
}

TEST(analyse_tactical, new_patterns_are_policy_data) {
  auto loaded = parse_policy_text(
    R"({"tactical_patterns": [{"id": "disk-full", "regexes": ["no space left on device"],
        "instruction": "Free space first."}]})",
    "p.json");
  ASSERT_TRUE(loaded.is_ok()) << loaded.error().to_string();
  tactical_input in;
  in.stream_tail = {"[stderr] write failed: No space left on device"};
  auto a = analyse_tactical(loaded->value.tactical_patterns, in);
  EXPECT_EQ(a.matched_ids, std::vector<std::string>{"disk-full"});
  EXPECT_EQ(a.instructions, std::vector<std::string>{"Free space first."});
  EXPECT_EQ(to_json(a.events[1])["pattern_ids"], json::array({"disk-full"}));
}

TEST(write_set_snapshot, records_existence_size_mtime_and_hash_of_real_files) {
  test::temp_dir dir;
  auto a = dir.write("a.txt", "hello");
  auto missing = (dir.path() / "missing.txt").string();
  auto snap = take_write_set_snapshot({a.string(), missing});
  ASSERT_EQ(snap.size(), 2u);
  EXPECT_TRUE(snap[0].exists);
  EXPECT_EQ(snap[0].size, 5u);
  EXPECT_EQ(snap[0].hash, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  EXPECT_GT(snap[0].mtime, 0);
  EXPECT_FALSE(snap[1].exists);
  EXPECT_TRUE(snap[1].hash.empty());
}

TEST(diff_write_set, gives_created_modified_and_deleted_files) {
  test::temp_dir dir;
  auto keep = dir.write("keep.txt", "same").string();
  auto edit = dir.write("edit.txt", "old").string();
  auto gone = dir.write("gone.txt", "bye").string();
  auto fresh = (dir.path() / "new.txt").string();
  std::vector<std::string> paths{keep, edit, gone, fresh};
  auto before = take_write_set_snapshot(paths);
  dir.write("edit.txt", "new content");
  dir.write("new.txt", "x");
  std::filesystem::remove(gone);
  auto after = take_write_set_snapshot(paths);
  auto d = diff_write_set(before, after);
  EXPECT_EQ(d.created, std::vector<std::string>{fresh});
  EXPECT_EQ(d.modified, std::vector<std::string>{edit});
  EXPECT_EQ(d.deleted, std::vector<std::string>{gone});
  EXPECT_EQ(to_json(d)["created"][0], fresh);
}

TEST(intervention, lists_existing_files_with_the_attempts_that_touched_them) {
  auto fs = [](const char* p, bool exists, const char* hash) {
    file_snapshot s;
    s.path = p;
    s.exists = exists;
    s.size = exists ? 3 : 0;
    s.hash = hash;
    return s;
  };
  std::map<std::string, write_set_snapshot> history;
  history["t__p1__worker__a01"] = {{fs("/ws/a.py", false, ""), fs("/ws/b.py", true, "h1")},
                                   {fs("/ws/a.py", true, "h2"), fs("/ws/b.py", true, "h1")}};
  history["t__p1__worker__a02"] = {{fs("/ws/a.py", true, "h2"), fs("/ws/b.py", true, "h1")},
                                   {fs("/ws/a.py", true, "h3"), fs("/ws/b.py", true, "h1")}};
  tactical_analysis a;
  a.matched_ids = {"file-already-exists"};
  a.instructions = {"These files exist: edit them, do not create them."};
  std::vector<file_snapshot> now{fs("/ws/a.py", true, "h3"), fs("/ws/b.py", true, "h1"),
                                 fs("/ws/c.py", false, "")};
  auto ctx = build_intervention(a, now, history, 1234);
  EXPECT_EQ(ctx.pattern_ids, std::vector<std::string>{"file-already-exists"});
  EXPECT_EQ(ctx.existing_files, (std::vector<std::string>{"/ws/a.py", "/ws/b.py"}));
  EXPECT_EQ(ctx.touched_files, std::vector<std::string>{"/ws/a.py"});
  EXPECT_EQ(ctx.created_at, 1234);

  auto view = view_intervention(ctx, history);
  ASSERT_EQ(view.existing_files.size(), 2u);
  EXPECT_EQ(view.existing_files[0].created_by, std::vector<std::string>{"t__p1__worker__a01"});
  EXPECT_EQ(view.existing_files[0].modified_by, std::vector<std::string>{"t__p1__worker__a02"});
  EXPECT_TRUE(view.existing_files[1].created_by.empty());
  auto j = to_json(view);
  EXPECT_EQ(j["existing_files"][0]["path"], "/ws/a.py");

  auto text = render_intervention(view, "Earlier attempts left this behind:");
  EXPECT_NE(text.find("Earlier attempts left this behind:"), std::string::npos);
  EXPECT_NE(text.find("edit them, do not create them"), std::string::npos);
  EXPECT_NE(text.find("- /ws/a.py (created by t__p1__worker__a01; modified by t__p1__worker__a02)"),
            std::string::npos)
    << text;
  EXPECT_NE(text.find("- /ws/b.py (present before this task's attempts)"), std::string::npos);
  EXPECT_EQ(text.find("c.py"), std::string::npos);
}

} // namespace
} // namespace ad::runtime

namespace ad::runtime {
namespace {

TEST(analyse_tactical, the_default_patterns_name_the_path_the_error_gives) {
  auto patterns = defaults();
  struct row {
    const char* line;
    const char* path;
  };
  const row rows[] = {
    {"Error: File already exists: src/task_tracker/exceptions.py", "src/task_tracker/exceptions.py"},
    {"File already exists: /ws/src/api.cpp.", "/ws/src/api.cpp"},
    {"EEXIST: file already exists, open '/ws/include/x.hpp'", "/ws/include/x.hpp"},
    {"FileExistsError: [Errno 17] File exists: 'a.py'", "a.py"},
    {"ENOENT: no such file or directory, open '/ws/missing.txt'", "/ws/missing.txt"},
    {"[Errno 2] No such file or directory: 'docs/x.md'", "docs/x.md"},
    {"open /ws/cfg.toml: no such file or directory", "/ws/cfg.toml"},
    {"EACCES: permission denied, open '/ws/ro.txt'", "/ws/ro.txt"},
  };
  for (const auto& r : rows) {
    tactical_input in;
    in.evidence = r.line;
    EXPECT_EQ(tactical_named_paths(patterns, in), std::vector<std::string>{r.path}) << r.line;
  }
  // A message that names no path names none; the pattern still matches.
  tactical_input bare;
  bare.evidence = "file already exists";
  auto a = analyse_tactical(patterns, bare);
  EXPECT_EQ(a.matched_ids, std::vector<std::string>{"file-already-exists"});
  EXPECT_TRUE(a.named_paths.empty());
  // Each path once, first seen first, from every line that matched.
  tactical_input many;
  many.evidence = "File already exists: src/b.cpp";
  many.diagnostics = {"File already exists: src/a.cpp", "File already exists: src/b.cpp"};
  EXPECT_EQ(tactical_named_paths(patterns, many),
            (std::vector<std::string>{"src/b.cpp", "src/a.cpp"}));
}

TEST(intervention, names_the_file_the_error_gave_even_outside_the_write_set) {
  tactical_analysis a;
  a.matched_ids = {"file-already-exists"};
  a.instructions = {"These files exist: edit them, do not create them."};
  a.named_paths = {"src/x.cpp", "src/gone.cpp"};
  named_file x;
  x.path = "/ws/src/x.cpp";
  x.as_written = "src/x.cpp";
  x.exists = true;
  x.changed_by = {"t__p1__worker__a01"};
  x.predecessors = {"g/01_base"};
  // Nothing of the write set exists yet, and the snapshots never saw x.cpp.
  auto ctx = build_intervention(a, {}, {}, 99, {x});
  ASSERT_EQ(ctx.named_files.size(), 2u);
  EXPECT_EQ(ctx.named_files[0], x);
  EXPECT_EQ(ctx.named_files[1].path, "src/gone.cpp");
  EXPECT_FALSE(ctx.named_files[1].exists);
  auto text = render_intervention(view_intervention(ctx, {}), "Earlier attempts:");
  EXPECT_NE(text.find("Files the error names:\n- /ws/src/x.cpp (exists now; not in this task's "
                      "write set; last changed while t__p1__worker__a01 ran; in the write set of "
                      "completed g/01_base)"),
            std::string::npos)
    << text;
  EXPECT_NE(text.find("- src/gone.cpp (does not exist now; not in this task's write set)"),
            std::string::npos)
    << text;
  EXPECT_EQ(text.find("None of the task's files exist yet."), std::string::npos) << text;
  EXPECT_NE(text.find("None of the task's write-set files exist yet."), std::string::npos);
  EXPECT_EQ(to_json(view_intervention(ctx, {}))["named_files"][0]["predecessors"][0], "g/01_base");
}

} // namespace
} // namespace ad::runtime
