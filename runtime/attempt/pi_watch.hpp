#pragma once
// One observation of a pi session for the pi session watcher: resolves the
// session file (a known file; else, once pi has created it, the *.jsonl in
// the session folder whose name holds the session id, or without an id the
// newest *.jsonl there: the public pi names the file itself) and reads its phase
// from the end with read_pi_session_state. Reads the file system only; no
// state between calls. Never throws: a missing folder or file reads as
// starting with reason native-session-file-missing.

#include <filesystem>
#include <string_view>

#include "runtime/agents/pi_session.hpp"

namespace ad::runtime {

struct pi_session_reading {
  std::filesystem::path file; // empty while not found
  pi_session_state state;
};

pi_session_reading read_pi_target(const std::filesystem::path& known_file,
                                  const std::filesystem::path& session_dir,
                                  std::string_view session_id);

} // namespace ad::runtime
