#include "runtime/attempt/pi_watch.hpp"

#include "runtime/agents/native_sessions.hpp"

namespace ad::runtime {

pi_session_reading read_pi_target(const std::filesystem::path& known_file,
                                  const std::filesystem::path& session_dir,
                                  std::string_view session_id) {
  pi_session_reading out;
  out.file = known_file;
  if (out.file.empty() && !session_dir.empty() && !session_id.empty()) {
    if (auto found = find_pi_session(list_files(session_dir, ".jsonl"), session_id))
      out.file = *found;
  }
  if (out.file.empty()) {
    out.state.phase = pi_phase::starting;
    out.state.reason = "native-session-file-missing";
    return out;
  }
  out.state = read_pi_session_state(out.file);
  return out;
}

} // namespace ad::runtime
