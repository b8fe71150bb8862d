#include "runtime/keeper/keeper_files.hpp"

namespace ad::runtime {

std::filesystem::path spool_segment_path(const std::filesystem::path& log, int age) {
  return log.string() + (age == 0 ? ".tail" : ".tail.1");
}

std::filesystem::path spool_index_path(const std::filesystem::path& log) {
  return log.string() + ".tail.index";
}

} // namespace ad::runtime
