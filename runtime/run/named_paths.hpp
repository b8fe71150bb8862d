#pragma once
// What is known about the files a failure's own message names ("File
// already exists: src/x", runtime/policy/tactical.hpp named_paths), gathered
// when the failure comes in so the supervisor's intervention context can say
// whether each exists now, whether it is in the task's write set, which
// earlier attempt of this work unit ran when it last changed (by the
// attempts' locators: started_at..finished_at holds its mtime), and which
// completed predecessor task listed it in its PLAN's Modified Files Summary.
// Reads the file system (stat, the runs folder's locators, the predecessors'
// PLANs); never writes, never throws: what cannot be read is left unknown.

#include <filesystem>
#include <string>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

struct named_path_query {
  std::vector<std::string> paths_as_written; // relative ones are inside the workspace
  std::filesystem::path workspace;
  std::filesystem::path task_root; // <workspace>/agent-task
  std::string task;                // "auth/03+01,02_api"
  int64_t plan_number = 0;
  std::vector<std::string> write_paths;
  std::filesystem::path runs_dir;
  millis now = 0;                  // a running attempt's window ends now
};

std::vector<named_file> gather_named_files(const named_path_query& query);

} // namespace ad::runtime
