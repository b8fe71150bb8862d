#include "tools/demo-gen/demo_workspace.hpp"

#include <algorithm>

#include "runtime/core/files.hpp"

namespace ad::demo {

namespace fs = std::filesystem;

namespace {

std::string grade_text(int grade) {
  return (grade < 10 ? "G0" : "G") + std::to_string(grade);
}

std::string header_line(const demo_plan& p) {
  return "<!-- task=" + p.task + " plan=" + std::to_string(p.plan_number) + " tag=" + p.tag +
         " -->\n";
}

std::string title_of(std::string_view task) {
  auto slash = task.rfind('/');
  return std::string(slash == std::string_view::npos ? task : task.substr(slash + 1));
}

} // namespace

void demo_writer::write(std::string_view relative, std::string_view content) {
  if (!status_.is_ok())
    return;
  auto path = root_ / relative;
  auto made = runtime::make_directories(path.parent_path());
  if (!made.is_ok()) {
    status_ = made;
    return;
  }
  status_ = runtime::write_file_atomic(path, content, runtime::durability::buffered);
}

std::string demo_writer::plan_text(const demo_plan& p) {
  std::string out = p.with_header ? header_line(p) : std::string();
  out += "# PLAN: " + title_of(p.task) + "\n\n## Goal\n\n" + p.goal + "\n\n";
  out += "## Modified Files Summary\n\n| File | Change |\n|---|---|\n";
  for (const auto& f : p.files)
    out += "| " + f + " | implement as described in the steps |\n";
  out += "\n## Implementation Checklist\n\n";
  for (const auto& s : p.steps)
    out += "- [ ] " + s + "\n";
  out += "\n## Verification\n\n- Build and run the unit tests for the touched files.\n";
  return out;
}

std::string demo_writer::review_text(const demo_plan& p, std::string_view verdict_section) {
  std::string out = header_line(p);
  out += "# CODE_REVIEW: " + title_of(p.task) + "\n\n";
  out += "## Implementation Checklist\n\n";
  for (const auto& s : p.steps)
    out += "- [ ] " + s + "\n";
  out += "\n## Implementation Notes\n\n(filled in by the worker)\n\n";
  out += verdict_section;
  return out;
}

void demo_writer::plan_file(const demo_plan& p) {
  write("agent-task/" + p.task + "/PLAN-" + p.lane + "-" + grade_text(p.grade) + ".md",
        plan_text(p));
}

void demo_writer::review_file(const demo_plan& p, std::string_view verdict_section) {
  write("agent-task/" + p.task + "/CODE_REVIEW-" + p.lane + "-" + grade_text(p.grade) + ".md",
        review_text(p, verdict_section));
}

void demo_writer::active_task(const demo_plan& p) {
  plan_file(p);
  review_file(p, "## Code Review Result\n\n(pending: the official review fills this in)\n");
}

void demo_writer::recovery_logs(const demo_plan& p, int generation,
                                std::string_view verdict_section) {
  auto suffix = p.lane + "_" + grade_text(p.grade) + "_" + std::to_string(generation) + ".log";
  write("agent-task/" + p.task + "/plan_" + suffix, plan_text(p));
  write("agent-task/" + p.task + "/code_review_" + suffix, review_text(p, verdict_section));
}

void demo_writer::archived(std::string_view task, std::string_view year, std::string_view month,
                           std::string_view summary) {
  write("agent-task/archive/" + std::string(year) + "/" + std::string(month) + "/" +
            std::string(task) + "/complete.log",
        summary);
}

void demo_writer::user_review(std::string_view task, std::string_view content) {
  write("agent-task/" + std::string(task) + "/USER_REVIEW.md", content);
}

void demo_writer::source_file(std::string_view relative, std::string_view content) {
  write(relative, content);
}

runtime::status generate_demo(const fs::path& dir, std::string_view scenario, replace_mode mode) {
  const auto& all = demo_scenarios();
  auto it = std::find_if(all.begin(), all.end(),
                         [&](const demo_scenario& s) { return s.name == scenario; });
  if (it == all.end())
    return runtime::status::invalid_argument("unknown scenario '" + std::string(scenario) + "'");
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    bool empty = fs::is_directory(dir, ec) && fs::is_empty(dir, ec);
    if (!empty) {
      if (mode == replace_mode::refuse)
        return runtime::status::conflict(dir.string() +
                                         " exists and is not empty; pass --fresh to replace a "
                                         "demo workspace");
      if (!fs::exists(dir / ".ad-demo", ec))
        return runtime::status::conflict(dir.string() +
                                         " is not a demo workspace (no .ad-demo marker); "
                                         "refusing to replace it");
      fs::remove_all(dir, ec);
      if (ec)
        return runtime::status::io_error("cannot remove " + dir.string() + ": " + ec.message());
    }
  }
  demo_writer w(dir);
  w.write(".ad-demo", "scenario=" + it->name + "\n");
  it->build(w);
  return w.result();
}

} // namespace ad::demo
