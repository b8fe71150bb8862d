#include "runtime/keeper/keeper_files.hpp"

#include <array>
#include <string>

namespace ad::runtime {

std::filesystem::path spool_segment_path(const std::filesystem::path& log, int age) {
  return log.string() + (age == 0 ? ".tail" : ".tail.1");
}

std::filesystem::path spool_index_path(const std::filesystem::path& log) {
  return log.string() + ".tail.index";
}

kept_file_change classify_kept_file(std::string_view name) {
  if (name == keeper_record_file)
    return kept_file_change::record;
  if (name == keeper_exit_file || name == keeper_stream_file)
    return kept_file_change::spool;
  // Named once: the reactor asks for every event in every attempt folder.
  static const std::array<std::string, 3> segments = [] {
    const std::filesystem::path log(keeper_stream_file);
    return std::array<std::string, 3>{spool_segment_path(log, 0).string(),
                                      spool_segment_path(log, 1).string(),
                                      spool_index_path(log).string()};
  }();
  for (const auto& segment : segments)
    if (name == segment)
      return kept_file_change::spool;
  return kept_file_change::none;
}

} // namespace ad::runtime
