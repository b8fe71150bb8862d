#include "runtime/keeper/keeper_files.hpp"

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
  const std::filesystem::path log(keeper_stream_file);
  for (const auto& segment :
       {spool_segment_path(log, 0), spool_segment_path(log, 1), spool_index_path(log)})
    if (name == segment.native())
      return kept_file_change::spool;
  return kept_file_change::none;
}

} // namespace ad::runtime
