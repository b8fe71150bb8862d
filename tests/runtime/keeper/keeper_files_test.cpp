// The names in an attempt folder: which changes there the reader that
// follows a keeper must look at (classify_kept_file).

#include "runtime/keeper/keeper_files.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

TEST(classify_kept_file, the_record_is_its_own_change) {
  EXPECT_EQ(classify_kept_file("keeper.json"), kept_file_change::record);
}

TEST(classify_kept_file, the_spool_its_segments_and_the_end_record_are_read) {
  const std::filesystem::path log(keeper_stream_file);
  for (const std::filesystem::path& name :
       {log, spool_segment_path(log, 0), spool_segment_path(log, 1), spool_index_path(log),
        std::filesystem::path(keeper_exit_file)})
    EXPECT_EQ(classify_kept_file(name.native()), kept_file_change::spool) << name;
}

TEST(classify_kept_file, the_dispatchers_files_notes_and_temporary_files_are_not) {
  for (const char* name :
       {"locator.json", "locator.json.tmp.4242", "heartbeat.log", "normalized-output.log",
        "normalized-output.log.tail", "keeper.log", "keeper.json.tmp.4243", "exit.json.tmp.4243",
        "stream.log.tail.2", "stream.log.tail.index.tmp.1", "stream.log.old", "",
        "keeper.json.bak"})
    EXPECT_EQ(classify_kept_file(name), kept_file_change::none) << name;
}

} // namespace
} // namespace ad::runtime
