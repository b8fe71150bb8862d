#pragma once
// Where the dispatcher finds ad-keeper, the program every agent runs under
// (docs/keeper.md): $AD_KEEPER when set, else `ad-keeper` beside the running
// executable (the build folder, an install's bin folder), else the first on
// PATH. Reads the environment, /proc/self/exe and the file system; never
// throws. Error contract: not_found naming every place looked at, and the
// fix.

#include <filesystem>

#include "runtime/core/status.hpp"

namespace ad::runtime {

result<std::filesystem::path> find_keeper_binary();

} // namespace ad::runtime
