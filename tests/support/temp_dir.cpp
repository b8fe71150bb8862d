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

fs::path temp_dir::write(std::string_view relative, std::string_view content) const {
  fs::path p = path_ / relative;
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  EXPECT_TRUE(out.good()) << "cannot write fixture " << p;
  return p;
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
