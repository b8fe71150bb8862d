#include "runtime/workspace/dry_run_render.hpp"

#include <algorithm>

namespace ad::runtime {

namespace {

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width)
    s.append(width - s.size(), ' ');
  return s;
}

} // namespace

std::string render_dry_run_text(const dry_run_report& report) {
  std::size_t name_width = 4;
  for (const auto& t : report.tasks)
    name_width = std::max(name_width, t.name.size());
  std::string out;
  for (const auto& t : report.tasks) {
    out += pad(std::string(to_string(t.status)), 12) + pad(t.name, name_width + 2) +
           "stage=" + t.stage + " route=" + t.route +
           " dependency=" + t.dependency.label() + "\n";
    out += std::string(12, ' ') + t.reason + "\n";
  }
  const auto& s = report.summary;
  out += "summary: " + std::to_string(s.tasks) + " tasks: " + std::to_string(s.ready) +
         " ready, " + std::to_string(s.waiting) + " waiting, " + std::to_string(s.blocked) +
         " blocked, " + std::to_string(s.user_review) + " user-review, " +
         std::to_string(s.running) + " running, " + std::to_string(s.complete) +
         " complete; exit " + std::to_string(s.exit_code) + " (" + s.message + ")\n";
  return out;
}

json dry_run_task_json(const dry_run_task& t) {
  json j = json::object();
  j["event"] = "task";
  j["task"] = t.name;
  j["stage"] = t.stage;
  j["route"] = t.route;
  j["status"] = std::string(to_string(t.status));
  j["reason"] = t.reason;
  j["dependency"] = std::string(to_string(t.dependency.state));
  j["dependency_detail"] = t.dependency.label();
  j["work_unit_id"] = t.work_unit_id;
  j["write_set"] = t.write_set;
  j["errors"] = t.errors;
  if (!t.archive_path.empty())
    j["archive"] = t.archive_path;
  return j;
}

json dry_run_summary_json(const dry_run_summary& s) {
  json j = json::object();
  j["event"] = "summary";
  j["tasks"] = s.tasks;
  j["ready"] = s.ready;
  j["waiting"] = s.waiting;
  j["blocked"] = s.blocked;
  j["user_review"] = s.user_review;
  j["running"] = s.running;
  j["complete"] = s.complete;
  j["exit_code"] = s.exit_code;
  j["message"] = s.message;
  return j;
}

std::string render_dry_run_json_lines(const dry_run_report& report) {
  std::string out;
  for (const auto& t : report.tasks)
    out += dump_json(dry_run_task_json(t)) + "\n";
  out += dump_json(dry_run_summary_json(report.summary)) + "\n";
  return out;
}

} // namespace ad::runtime
