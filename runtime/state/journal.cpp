#include "runtime/state/journal.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#include "runtime/state/root.hpp"

namespace ad::runtime {

namespace {

constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k)
      c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;  // Castagnoli, reflected
    table[i] = c;
  }
  return table;
}
constexpr auto crc_table = make_crc_table();

// leveldb's masking: a CRC stored next to data it covers stays robust when
// the CRC of a CRC is computed.
uint32_t mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t get_u32(std::string_view in, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  return v;
}

bool all_zero(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == 0; });
}

uint32_t payload_crc(char type, std::string_view payload) {
  return mask(crc32c(payload, crc32c(std::string_view(&type, 1))));
}

} // namespace

namespace {

uint32_t crc32c_by_table(std::string_view data, uint32_t c) {
  for (unsigned char b : data)
    c = crc_table[(c ^ b) & 0xff] ^ (c >> 8);
  return c;
}

#if defined(__x86_64__)
// SSE 4.2's crc32 instruction computes the same Castagnoli CRC, eight bytes
// at a time: the journal's checksums are most of the time its scan takes
// on a restart or in `status` when read a byte at a time.
__attribute__((target("sse4.2"))) uint32_t crc32c_by_instruction(std::string_view data,
                                                                  uint32_t c) {
  const char* p = data.data();
  std::size_t n = data.size();
  uint64_t wide = c;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    wide = _mm_crc32_u64(wide, word);
  }
  c = static_cast<uint32_t>(wide);
  for (; n > 0; ++p, --n)
    c = _mm_crc32_u8(c, static_cast<unsigned char>(*p));
  return c;
}

bool has_crc_instruction() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return has;
}
#endif

} // namespace

uint32_t crc32c(std::string_view data, uint32_t seed) {
#if defined(__x86_64__)
  if (has_crc_instruction())
    return ~crc32c_by_instruction(data, ~seed);
#endif
  return ~crc32c_by_table(data, ~seed);
}

uint32_t crc32c_portable(std::string_view data, uint32_t seed) {
  return ~crc32c_by_table(data, ~seed);
}

void append_record(std::string& out, journal_record_type type, std::string_view payload) {
  char t = static_cast<char>(type);
  size_t start = out.size();
  put_u32(out, payload_crc(t, payload));
  put_u32(out, static_cast<uint32_t>(payload.size()));
  out.push_back(t);
  put_u32(out, mask(crc32c(std::string_view(out).substr(start, 9))));
  out.append(payload);
}

std::string encode_record(journal_record_type type, std::string_view payload) {
  std::string out;
  out.reserve(journal_record_header_size + payload.size());
  append_record(out, type, payload);
  return out;
}

result<journal_scan> scan_journal(std::string_view data, const std::filesystem::path& file) {
  journal_scan scan;
  size_t pos = 0;
  auto corrupt = [&](size_t at, const std::string& what) {
    return status::corruption(
      "state journal " + file.string() + " is damaged at byte offset " + std::to_string(at)
      + ": " + what
      + ". Records after it cannot be trusted; nothing was changed. " + std::string(state_root_fix));
  };
  while (pos < data.size()) {
    std::string_view rest = data.substr(pos);
    auto torn = [&]() -> result<journal_scan> {
      scan.valid_bytes = pos;
      scan.torn_bytes = rest.size();
      return scan;
    };
    if (rest.size() < journal_record_header_size)
      return torn();
    uint32_t stored_header_crc = get_u32(rest, 9);
    if (mask(crc32c(rest.substr(0, 9))) != stored_header_crc) {
      if (all_zero(rest))
        return torn();
      return corrupt(pos, "record header checksum mismatch");
    }
    uint32_t length = get_u32(rest, 4);
    auto type = static_cast<unsigned char>(rest[8]);
    if (type != static_cast<unsigned char>(journal_record_type::header)
        && type != static_cast<unsigned char>(journal_record_type::entry))
      return corrupt(pos, "unknown record type " + std::to_string(type));
    if (length > journal_max_payload)
      return corrupt(pos, "record length " + std::to_string(length) + " exceeds the limit");
    if (rest.size() - journal_record_header_size < length)
      return torn();
    std::string_view payload = rest.substr(journal_record_header_size, length);
    if (payload_crc(static_cast<char>(type), payload) != get_u32(rest, 0)) {
      if (journal_record_header_size + length == rest.size())
        return torn();
      return corrupt(pos, "record payload checksum mismatch");
    }
    scan.records.push_back(
      journal_record{static_cast<journal_record_type>(type), pos, payload});
    pos += journal_record_header_size + length;
  }
  scan.valid_bytes = pos;
  return scan;
}

namespace {
constexpr std::string_view mark_magic = "ADMARK01";
}

std::string encode_mark(uint64_t seq) {
  std::string out(mark_magic);
  put_u32(out, static_cast<uint32_t>(seq & 0xffffffffu));
  put_u32(out, static_cast<uint32_t>(seq >> 32));
  put_u32(out, mask(crc32c(out)));
  return out;
}

std::optional<uint64_t> decode_mark(std::string_view data) {
  if (data.size() != journal_mark_size || data.substr(0, mark_magic.size()) != mark_magic)
    return std::nullopt;
  if (mask(crc32c(data.substr(0, 16))) != get_u32(data, 16))
    return std::nullopt;
  return uint64_t{get_u32(data, 8)} | (uint64_t{get_u32(data, 12)} << 32);
}

} // namespace ad::runtime
