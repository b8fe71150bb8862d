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
  EXPECT_EQ(crc32c_portable("123456789"), 0xe3069283u);
  EXPECT_EQ(crc32c(""), 0u);
}

// The instruction's path (eight bytes at a time, then the rest) gives the
// table's answer for every length and alignment, and when chained by seed.
TEST(state_journal, crc32c_by_instruction_equals_the_table) {
  std::string data;
  uint32_t x = 12345;
  for (int i = 0; i < 300; ++i) {
    x = x * 1103515245u + 12345u;
    data.push_back(static_cast<char>(x >> 16));
  }
  std::string_view all(data);
  for (size_t start = 0; start < 9; ++start)
    for (size_t len = 0; start + len <= all.size(); len += 7) {
      auto part = all.substr(start, len);
      ASSERT_EQ(crc32c(part), crc32c_portable(part)) << start << "+" << len;
      ASSERT_EQ(crc32c(part, 0xdeadbeefu), crc32c_portable(part, 0xdeadbeefu));
    }
  EXPECT_EQ(crc32c(all.substr(100), crc32c(all.substr(0, 100))), crc32c(all));
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
