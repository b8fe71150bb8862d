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
  // The state is the first field after the command name's ')'.
  auto close = stat->rfind(')');
  std::size_t at = stat->find_first_not_of(' ', close + 1);
  char state = at == std::string::npos ? 'X' : (*stat)[at];
  return state == 'Z' || state == 'X' ? process_presence::gone : process_presence::alive;
}

} // namespace ad::runtime
