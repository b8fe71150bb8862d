#include "tools/cli/retry_command.hpp"

#include <cstdlib>

#include "runtime/report/board.hpp"

namespace ad::cli {

namespace fs = std::filesystem;

std::string retry_command(const fs::path& workspace) {
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  std::string program = ec ? std::string("agent-dispatch") : self.string();
  if (const char* path = std::getenv("PATH"); path != nullptr && !ec) {
    std::string dirs = path;
    for (size_t start = 0; start <= dirs.size();) {
      auto colon = dirs.find(':', start);
      auto dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      std::error_code e2;
      auto candidate = fs::path(dir.empty() ? "." : dir) / "agent-dispatch";
      if (fs::exists(candidate, e2)) {
        if (fs::equivalent(candidate, self, e2))
          program = "agent-dispatch";
        break;  // the first on PATH is what the name runs
      }
      if (colon == std::string::npos)
        break;
      start = colon + 1;
    }
  }
  auto shown = workspace;
  auto cwd = fs::current_path(ec);
  if (!ec) {
    auto rel = workspace.lexically_relative(cwd);
    if (!rel.empty() && *rel.begin() != "..")
      shown = rel;
  }
  return runtime::shell_word(program) + " run --workspace " + runtime::shell_word(shown.string()) +
         " --retry-blocked";
}

} // namespace ad::cli
