#include "runtime/keeper/keeper_binary.hpp"

#include <cstdlib>
#include <string>
#include <unistd.h>

namespace ad::runtime {

namespace {

bool executable(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

} // namespace

result<std::filesystem::path> find_keeper_binary() {
  std::string looked;
  if (const char* env = std::getenv("AD_KEEPER"); env && *env) {
    if (executable(env))
      return std::filesystem::path(env);
    return status::not_found(std::string("AD_KEEPER names ") + env +
                             ", which is not an executable file; unset it or point it at "
                             "the ad-keeper that was built with agent-dispatch");
  }
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto beside = self.parent_path() / "ad-keeper";
    if (executable(beside))
      return beside;
    looked = beside.string();
  }
  if (const char* path = std::getenv("PATH")) {
    std::string all = path;
    std::size_t start = 0;
    while (start <= all.size()) {
      auto end = all.find(':', start);
      auto dir = all.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (!dir.empty() && executable(std::filesystem::path(dir) / "ad-keeper"))
        return std::filesystem::path(dir) / "ad-keeper";
      if (end == std::string::npos)
        break;
      start = end + 1;
    }
  }
  return status::not_found("ad-keeper, the program every agent runs under, is neither at " +
                           (looked.empty() ? std::string("the executable's folder") : looked) +
                           " nor on PATH; build it (cmake --build build --target ad-keeper) "
                           "or set AD_KEEPER to its path");
}

} // namespace ad::runtime
