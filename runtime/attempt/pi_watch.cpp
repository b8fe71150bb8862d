#include "runtime/attempt/pi_watch.hpp"

#include "runtime/agents/native_sessions.hpp"

namespace ad::runtime {

pi_session_reading read_pi_target(const std::filesystem::path& known_file,
                                  const std::filesystem::path& session_dir,
                                  std::string_view session_id) {
  pi_session_reading out;
  out.file = known_file;
  if (out.file.empty() && !session_dir.empty()) {
    // A pi that names its session file itself: the attempt's own session
    // folder holds only that file.
    auto files = list_files(session_dir, ".jsonl");
    auto found = session_id.empty() ? newest_jsonl(files) : find_pi_session(files, session_id);
    if (found)
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
