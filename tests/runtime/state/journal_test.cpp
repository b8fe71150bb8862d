#include "runtime/state/journal.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

std::string three_records() {
  std::string out = encode_record(journal_record_type::header, R"({"h":1})");
  append_record(out, journal_record_type::entry, R"({"seq":1})");
  append_record(out, journal_record_type::entry, R"({"seq":2,"x":"abcdef"})");
  return out;
}

TEST(state_journal, crc32c_matches_known_vector) {
  EXPECT_EQ(crc32c("123456789"), 0xe3069283u);
}

TEST(state_journal, records_scan_back_in_order) {
  auto data = three_records();
  auto scan = scan_journal(data, "j.log");
  ASSERT_TRUE(scan);
  ASSERT_EQ(scan->records.size(), 3u);
  EXPECT_EQ(scan->records[0].type, journal_record_type::header);
  EXPECT_EQ(scan->records[2].payload, R"({"seq":2,"x":"abcdef"})");
  EXPECT_EQ(scan->valid_bytes, data.size());
  EXPECT_EQ(scan->torn_bytes, 0u);
}

TEST(state_journal, every_cut_of_the_last_record_is_a_torn_tail) {
  auto data = three_records();
  auto full = scan_journal(data, "j.log");
  uint64_t last = full->records.back().offset;
  for (uint64_t cut = last + 1; cut < data.size(); ++cut) {
    auto scan = scan_journal(std::string_view(data).substr(0, cut), "j.log");
    ASSERT_TRUE(scan) << "cut at " << cut << ": " << scan.error().to_string();
    EXPECT_EQ(scan->records.size(), 2u);
    EXPECT_EQ(scan->valid_bytes, last);
    EXPECT_EQ(scan->torn_bytes, cut - last);
  }
}

TEST(state_journal, damaged_last_record_and_zero_tail_are_torn) {
  auto data = three_records();
  data.back() ^= 0x20;  // payload of the final record
  auto scan = scan_journal(data, "j.log");
  ASSERT_TRUE(scan);
  EXPECT_EQ(scan->records.size(), 2u);
  auto zeros = three_records() + std::string(40, '\0');
  auto z = scan_journal(zeros, "j.log");
  ASSERT_TRUE(z);
  EXPECT_EQ(z->records.size(), 3u);
  EXPECT_EQ(z->torn_bytes, 40u);
}

TEST(state_journal, damage_before_the_last_record_is_corruption_with_offset) {
  auto data = three_records();
  auto full = scan_journal(data, "j.log");
  uint64_t second = full->records[1].offset;
  for (uint64_t at : {second + 2, second + 15}) {  // header crc, then payload
    auto bad = data;
    bad[at] ^= 0x01;
    auto scan = scan_journal(bad, "/s/journal.log");
    ASSERT_FALSE(scan) << "flip at " << at;
    EXPECT_TRUE(scan.error().is_corruption());
    EXPECT_NE(scan.error().message().find("/s/journal.log"), std::string::npos);
    EXPECT_NE(scan.error().message().find("offset " + std::to_string(second)), std::string::npos)
      << scan.error().message();
  }
}

} // namespace
} // namespace ad::runtime
