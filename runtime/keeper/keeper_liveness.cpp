#include "runtime/keeper/keeper_liveness.hpp"

#include <string>

#include "runtime/core/files.hpp"
#include "runtime/core/proc_stat.hpp"

namespace ad::runtime {

process_presence probe_process(int pid, std::string_view start_token,
                               const std::filesystem::path& proc_root) {
  if (pid <= 0 || start_token.empty())
    return process_presence::gone;
  auto stat = read_file(proc_root / std::to_string(pid) / "stat", 64 << 10);
  if (!stat)
    return process_presence::gone;
  auto token = parse_start_token(*stat);
  if (!token || *token != start_token)
    return process_presence::gone;
  // The state is field 3, the first after the command name.
  auto fields = stat_fields_after_name(*stat);
  char state = fields && !fields->empty() && !fields->front().empty() ? fields->front().front() : 'X';
  return state == 'Z' || state == 'X' ? process_presence::gone : process_presence::alive;
}

} // namespace ad::runtime
