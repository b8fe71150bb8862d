#pragma once
// A task's intervention context as `run --web` shows it on the task page
// (docs/dashboard.md): what the durable state holds after a tactical match
// (the supervisor's set_intervention) until the task's next success, with
// the block the next prompt gives the agent (runtime/policy/tactical.hpp
// render_intervention). Read from the state root without the lock and
// without writing (state_reader.hpp), as `serve` reads it; the state is
// read again only when its files changed (state_files_stamp). Not
// thread-safe: one caller at a time. Never throws.

#include <filesystem>
#include <optional>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/observe/state_reader.hpp"

namespace ad::runtime {

// What says the durable state changed: the journal's, the snapshot's and
// the journal mark's sizes and modification times.
std::string state_files_stamp(const std::filesystem::path& state_root);

class task_intervention_reader {
public:
  // `root`: the workspace's state root (open_state_root), checked again
  // at each read; `header`: the policy's prompts.intervention.
  task_intervention_reader(std::filesystem::path root, std::string workspace_path,
                           std::string workspace_id, std::string header);

  // {"pattern_ids", "instruction", "named_files", "existing_files",
  // "created_at", "prompt"} (tactical.hpp to_json(intervention_view) plus
  // when it was made and the prompt block); null when the task has none or
  // the state cannot be read.
  json of(const std::string& task);

private:
  std::filesystem::path root_;
  std::string workspace_path_;
  std::string workspace_id_;
  std::string header_;
  std::string stamp_;
  std::optional<unlocked_state> state_;
};

} // namespace ad::runtime
