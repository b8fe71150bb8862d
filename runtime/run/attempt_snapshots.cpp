#include "runtime/run/attempt_snapshots.hpp"

#include "runtime/policy/tactical.hpp"

namespace ad::runtime {

state_change write_set_change(const std::string& task, const std::string& attempt_id,
                              snapshot_phase phase, std::vector<file_snapshot> files) {
  return record_write_set{task, attempt_id, phase, std::move(files)};
}

state_change snapshot_write_set(const std::string& task, const std::string& attempt_id,
                                snapshot_phase phase, const std::vector<std::string>& paths) {
  return write_set_change(task, attempt_id, phase, take_write_set_snapshot(paths));
}

std::vector<file_snapshot> current_write_set(const std::vector<std::string>& paths) {
  return take_write_set_snapshot(paths);
}

} // namespace ad::runtime
