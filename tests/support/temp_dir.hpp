#pragma once
// A fresh temporary directory per test, removed on destruction, plus small
// helpers to write fixture files. Test-only; asserts through GoogleTest.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ad::test {

class temp_dir {
public:
  temp_dir();
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes content to path()/relative, creating parent folders.
  std::filesystem::path write(std::string_view relative, std::string_view content) const;

private:
  std::filesystem::path path_;
};

// Writes a minimal active task into the workspace ws: a PLAN whose write set
// is the one file path (created too) and a CODE_REVIEW, both for plan 1.
void write_minimal_task(const temp_dir& ws, const std::string& task, const std::string& path);

// A PLAN + CODE_REVIEW pair in the layout of SPEC section 2 (route <lane>-G05,
// plan 1, tag initial, a two-step checklist) claiming `files`
// (workspace-relative; the files themselves are not written).
void write_plan_and_review(const std::filesystem::path& workspace, const std::string& task,
                           const std::string& lane, const std::vector<std::string>& files);

// The source tree (for fixtures under tests/) and the build tree (for built tools).
std::filesystem::path source_dir();
std::filesystem::path binary_dir();

} // namespace ad::test
