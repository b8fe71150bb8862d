#include "tests/support/temp_dir.hpp"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace ad::test {

namespace fs = std::filesystem;

temp_dir::temp_dir() {
  std::string tmpl = (fs::temp_directory_path() / "ad-test-XXXXXX").string();
  char* made = ::mkdtemp(tmpl.data());
  EXPECT_NE(made, nullptr);
  // Canonical, so tests comparing canonical paths see the same prefix.
  path_ = fs::canonical(tmpl);
}

temp_dir::~temp_dir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

namespace {

fs::path write_under(const fs::path& root, std::string_view relative, std::string_view content) {
  fs::path p = root / relative;
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  EXPECT_TRUE(out.good()) << "cannot write fixture " << p;
  return p;
}

} // namespace

fs::path temp_dir::write(std::string_view relative, std::string_view content) const {
  return write_under(path_, relative, content);
}

void write_plan_and_review(const fs::path& workspace, const std::string& task,
                           const std::string& lane, const std::vector<std::string>& files) {
  std::string header = "<!-- task=" + task + " plan=1 tag=initial -->\n";
  std::string plan = header + "# PLAN\n\n## Goal\n\nDo it.\n\n## Modified Files Summary\n\n" +
                     "| File | Change |\n|---|---|\n";
  for (const auto& f : files)
    plan += "| `" + f + "` | change |\n";
  plan += "\n## Implementation Checklist\n\n- [ ] Step one\n- [ ] Step two\n";
  std::string review = header + "# CODE_REVIEW\n\n## Implementation Checklist\n\n" +
                       "- [ ] Step one\n- [ ] Step two\n\n## Code Review Result\n\n(pending)\n";
  write_under(workspace, "agent-task/" + task + "/PLAN-" + lane + "-G05.md", plan);
  write_under(workspace, "agent-task/" + task + "/CODE_REVIEW-" + lane + "-G05.md", review);
}

fs::path source_dir() { return AD_SOURCE_DIR; }
fs::path binary_dir() { return AD_BINARY_DIR; }

void write_minimal_task(const temp_dir& ws, const std::string& task, const std::string& path) {
  std::string header = "<!-- task=" + task + " plan=1 tag=t -->\n";
  ws.write("agent-task/" + task + "/PLAN-cloud-G03.md",
           header + "# PLAN\n\n## Modified Files Summary\n\n| File | Change |\n|---|---|\n| `" +
             path + "` | x |\n\n## Implementation Checklist\n\n- [ ] a\n");
  ws.write("agent-task/" + task + "/CODE_REVIEW-cloud-G03.md",
           header + "# REVIEW\n\n## Implementation Checklist\n\n- [ ] a\n");
  ws.write(path, "x\n");
}

} // namespace ad::test
