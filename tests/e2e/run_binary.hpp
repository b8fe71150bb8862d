#pragma once
// Runs a built program with arguments (no shell), capturing stdout, stderr and
// the exit code. Test-only helper for the end-to-end tests.
#include <string>
#include <vector>

namespace ad::test {

struct run_output {
  int exit_code = -1;
  std::string out;
  std::string err;
};

run_output run_binary(const std::string& program, const std::vector<std::string>& args,
                      const std::string& cwd = {});

// <build dir>/agent-dispatch
std::string agent_dispatch();

} // namespace ad::test
