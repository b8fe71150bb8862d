#pragma once
// The folders directly inside a folder (symlinks followed), sorted by path;
// none when the folder cannot be listed, and a listing error keeps what was
// read before it. Reads the file system; never throws.

#include <filesystem>
#include <vector>

namespace ad::runtime {

std::vector<std::filesystem::path> subfolders(const std::filesystem::path& dir);

} // namespace ad::runtime
