#pragma once
// Building blocks for demo workspaces: a writer that lays out agent-task/
// folders (PLANs with identity header, Modified Files Summary and
// Implementation Checklist; CODE_REVIEW files; USER_REVIEW stop requests;
// plan/review logs; archived complete.log folders) and the registry of named
// scenarios. A scenario is a function over demo_writer; add one by writing
// the function and listing it in demo_scenarios(). Used only by the
// ad-demo-gen tool and its tests; writes files, never reads the workspace back.

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"

namespace ad::demo {

// One task's PLAN content.
struct demo_plan {
  std::string task;                  // "auth/02+01_session_store"
  std::string lane = "local";        // local | cloud
  int grade = 5;                     // 1..10
  int plan_number = 1;
  std::string tag = "initial";
  std::string goal;                  // one paragraph
  std::vector<std::string> files;    // Modified Files Summary rows (first cell text, unquoted)
  std::vector<std::string> steps;    // Implementation Checklist items
  bool with_header = true;
};

class demo_writer {
public:
  explicit demo_writer(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const { return root_; }
  // Writes root/relative, creating folders. Failures are remembered.
  void write(std::string_view relative, std::string_view content);

  // PLAN-<lane>-G<grade>.md and a CODE_REVIEW without verdict (checklist open).
  void active_task(const demo_plan& plan);
  // Only the PLAN (for an invalid task) or only the CODE_REVIEW text given.
  void plan_file(const demo_plan& plan);
  void review_file(const demo_plan& plan, std::string_view verdict_section);
  // plan_<lane>_G<grade>_<n>.log and code_review_<lane>_G<grade>_<n>.log with a verdict.
  void recovery_logs(const demo_plan& plan, int generation, std::string_view verdict_section);
  // archive/<year>/<month>/<task>/complete.log
  void archived(std::string_view task, std::string_view year, std::string_view month,
                std::string_view summary);
  void user_review(std::string_view task, std::string_view content);
  // An ordinary source file inside the workspace (outside agent-task/).
  void source_file(std::string_view relative, std::string_view content);

  runtime::status result() const { return status_; }

  static std::string plan_text(const demo_plan& plan);
  static std::string review_text(const demo_plan& plan, std::string_view verdict_section);

private:
  std::filesystem::path root_;
  runtime::status status_;
};

struct demo_scenario {
  std::string name;
  std::string description;
  std::function<void(demo_writer&)> build;
};

// Every scenario the tool knows; the first is the default.
const std::vector<demo_scenario>& demo_scenarios();

// The scenario behind the dry run of `bash tools/demo.sh`: 4 groups, 13 active tasks and an
// archived predecessor, covering ready workers and reviews, dependencies, a
// claim conflict, a USER_REVIEW stop, an invalid PLAN and a recovery folder.
void build_standard_demo(demo_writer& w);
// The same workspace after a person resolved the two held tasks: the
// USER_REVIEW stop is replaced by an approved PLAN and the invalid Modified
// Files Summary names real files. Every task can complete (the real run of
// `bash tools/demo.sh`).
void build_resolved_demo(demo_writer& w);

// Creates `dir` with the scenario. With replace_mode::replace an existing
// demo workspace (one holding the .ad-demo marker) is removed first; any other
// non-empty folder is refused.
enum class replace_mode : uint8_t { refuse, replace };
runtime::status generate_demo(const std::filesystem::path& dir, std::string_view scenario,
                              replace_mode mode);

} // namespace ad::demo
