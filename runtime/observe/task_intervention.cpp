#include "runtime/observe/task_intervention.hpp"

#include "runtime/policy/tactical.hpp"

namespace ad::runtime {

std::string state_files_stamp(const std::filesystem::path& state_root) {
  std::string stamp;
  for (const char* name : {"journal.log", "state.json", "journal.mark"}) {
    std::error_code ec;
    auto p = state_root / name;
    auto size = std::filesystem::file_size(p, ec);
    auto time = std::filesystem::last_write_time(p, ec);
    stamp += std::to_string(ec ? 0 : size) + ":" +
             std::to_string(ec ? 0 : time.time_since_epoch().count()) + ";";
  }
  return stamp;
}

task_intervention_reader::task_intervention_reader(std::filesystem::path root,
                                                   std::string workspace_path,
                                                   std::string workspace_id, std::string header)
    : root_(std::move(root)),
      workspace_path_(std::move(workspace_path)),
      workspace_id_(std::move(workspace_id)),
      header_(std::move(header)) {}

json task_intervention_reader::of(const std::string& task) {
  auto stamp = state_files_stamp(root_);
  if (!state_ || stamp != stamp_) {
    // The run's first change turns a fresh root into one with a journal.
    auto kind = check_state_root(root_);
    if (!kind.is_ok())
      return nullptr;
    auto read = read_state_unlocked({root_, *kind}, workspace_path_, workspace_id_);
    if (!read.is_ok())
      return nullptr;  // a state being compacted: the next request reads it again
    state_ = std::move(*read);
    stamp_ = std::move(stamp);
  }
  auto t = state_->state.tasks.find(task);
  if (t == state_->state.tasks.end() || !t->second.intervention)
    return nullptr;
  auto view = view_intervention(*t->second.intervention, t->second.write_sets);
  auto j = to_json(view);
  j["created_at"] = format_utc_iso(t->second.intervention->created_at);
  j["prompt"] = render_intervention(view, header_);
  return j;
}

} // namespace ad::runtime
