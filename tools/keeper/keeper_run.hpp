#pragma once
// One run of ad-keeper from a parsed command line to its exit code: detach
// from the caller (own session, SIGPIPE/SIGHUP/SIGINT/SIGQUIT ignored,
// inherited descriptors closed on exec), open keeper.log and the spool, set
// up the containment (attempt_processes), start the agent, write
// keeper.json, follow the agent and end what it left (keeper_loop), then
// write exit.json. Exit codes: 0 the exit record is written; 1 it could not
// be; 3 the attempt folder could not be written at the start (the agent is
// not started). The message, when not empty, is for the caller's stderr
// (main prints it); keeper.log has the same. Never throws except
// std::bad_alloc.

#include <string>

#include "runtime/keeper/keeper_args.hpp"

namespace ad::keeper {

inline constexpr int exit_ok = 0;
inline constexpr int exit_record_failed = 1;
inline constexpr int exit_usage = 2;
inline constexpr int exit_folder_unwritable = 3;

struct keeper_outcome {
  int exit_code = exit_ok;
  std::string message;
};

keeper_outcome run_keeper(const runtime::keeper_invocation& inv);

} // namespace ad::keeper
