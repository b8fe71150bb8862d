#pragma once
// The journal record format (docs/state-format.md): each record is a 13-byte
// header followed by its payload.
//
//   payload_crc : uint32 LE   masked CRC-32C of type byte + payload
//   length      : uint32 LE   payload bytes
//   type        : uint8       1 = journal header, 2 = entry
//   header_crc  : uint32 LE   masked CRC-32C of the 9 bytes above
//
// encode_record() builds one record; scan_journal() splits a journal into
// records and classifies damage: a damaged final record (one that reaches the
// end of the file, or a header cut short, or a zero-filled tail) is a torn
// tail, reported in `torn_bytes` for the caller to drop with a warning; any
// other damage returns corruption() naming the file, the byte offset and what
// to do. Pure functions over bytes; never throw.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"

namespace ad::runtime {

enum class journal_record_type : uint8_t { header = 1, entry = 2 };

inline constexpr size_t journal_record_header_size = 13;
inline constexpr uint32_t journal_max_payload = 256u << 20;

// CRC-32C (Castagnoli), with the processor's instruction where it has one;
// crc32c_portable computes it a byte at a time from a table, whatever the
// processor (tests compare the two).
uint32_t crc32c(std::string_view data, uint32_t seed = 0);
uint32_t crc32c_portable(std::string_view data, uint32_t seed = 0);

std::string encode_record(journal_record_type type, std::string_view payload);
// Appends one record to out (avoids a copy per record in group commits).
void append_record(std::string& out, journal_record_type type, std::string_view payload);

struct journal_record {
  journal_record_type type = journal_record_type::entry;
  uint64_t offset = 0;  // of the record header in the file
  std::string_view payload;  // points into the scanned buffer
};

struct journal_scan {
  std::vector<journal_record> records;
  uint64_t valid_bytes = 0;  // end of the last intact record
  uint64_t torn_bytes = 0;   // bytes after valid_bytes (a torn tail)
};

result<journal_scan> scan_journal(std::string_view data, const std::filesystem::path& file);

// The journal's high-water mark (journal.mark, docs/state-format.md): the seq
// of the last entry whose sync returned, rewritten in place after every group
// commit. 20 bytes: magic "ADMARK01", seq as uint64 LE, masked CRC-32C of the
// 16 bytes before it. A journal that ends before the mark's seq lost
// acknowledged entries, even when it was cut exactly at a record boundary.
inline constexpr size_t journal_mark_size = 20;
std::string encode_mark(uint64_t seq);
// The seq, or nullopt when the bytes are not an intact mark.
std::optional<uint64_t> decode_mark(std::string_view data);

} // namespace ad::runtime
