// PLAN text: the Modified Files Summary (the write set a task claims) and the
// plan header. Invariants: every claimed path is inside the workspace, sorted
// and unique; a report with a diagnostic is not valid; every diagnostic's
// line is a line of the text.
#include <algorithm>
#include <filesystem>
#include <unistd.h>

#include "runtime/workspace/markdown.hpp"
#include "runtime/workspace/plan_header.hpp"
#include "runtime/workspace/write_set.hpp"
#include "tests/fuzz/fuzz_target.hpp"

namespace {

namespace fs = std::filesystem;

// A workspace with a file, a folder and a symlink out of it, made once and
// removed at exit. The removal is registered after the path is made, so it
// runs before the path is destroyed (exit runs them in reverse order).
const fs::path& fuzz_workspace() {
  static const fs::path ws = [] {
    std::string pattern = (fs::temp_directory_path() / "ad-fuzz-ws-XXXXXX").string();
    fs::path dir = ::mkdtemp(pattern.data());
    fs::create_directories(dir / "src");
    FILE* f = std::fopen((dir / "src" / "main.cpp").c_str(), "w");
    if (f)
      std::fclose(f);
    std::error_code ec;
    fs::create_symlink("/etc", dir / "outside", ec);
    return fs::canonical(dir);
  }();
  static const int removal = std::atexit([] {
    std::error_code e;
    fs::remove_all(ws, e);
  });
  (void) removal;
  return ws;
}

} // namespace

AD_FUZZ_TARGET(plan) {
  using namespace ad::runtime;
  const fs::path& ws = fuzz_workspace();
  auto report = inspect_write_set(input, ws, "PLAN-fuzz.md");
  std::string prefix = ws.string() + "/";
  for (const auto& p : report.paths)
    ad::fuzz::fuzz_require(p.rfind(prefix, 0) == 0 && p.find("/../") == std::string::npos,
                           "a claimed path escapes the workspace: " + p);
  ad::fuzz::fuzz_require(std::is_sorted(report.paths.begin(), report.paths.end())
                           && std::adjacent_find(report.paths.begin(), report.paths.end())
                                == report.paths.end(),
                         "claimed paths are not sorted and unique");
  ad::fuzz::fuzz_require(report.diagnostics.empty() || !report.valid(),
                         "a report with diagnostics is valid");
  size_t lines = split_lines(input).size();
  for (const auto& d : report.diagnostics)
    ad::fuzz::fuzz_require(d.line <= lines && !d.message.empty(),
                           "a diagnostic names line " + std::to_string(d.line) + " of "
                             + std::to_string(lines) + ": " + d.message);
  if (auto header = parse_plan_header(input))
    ad::fuzz::fuzz_require(!header->work_unit_id().empty(), "a parsed header has no work unit");
  return 0;
}
