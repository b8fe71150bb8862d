// The durable store's load path on a fuzzed journal: its records, header,
// entries and the mark (invariant: tests/fuzz/store_check.hpp).
#include "runtime/state/journal.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tests/fuzz/store_check.hpp"

using namespace ad::runtime;
using ad::fuzz::at_root;
using ad::fuzz::check_store;

// Input: a first byte of flags, then either raw journal bytes (flag bit 0)
// or lines that become well-formed records (the first a header, the rest
// entries), so the fuzzer reaches the payload readers past the checksums.
// Bits 1-2 damage the structured journal: cut its last record in half, drop
// it whole (a cut at a record boundary), or flip one byte; bit 3 writes a
// mark naming the seq in bits 4-7.
AD_FUZZ_TARGET(journal) {
  if (input.empty())
    return 0;
  auto flags = static_cast<unsigned char>(input[0]);
  std::string_view body = input.substr(1);
  std::string journal;
  std::vector<size_t> starts;
  if (flags & 1) {
    journal.assign(body);
  } else {
    bool first = true;
    while (!body.empty() || first) {
      size_t nl = body.find('\n');
      std::string_view line = body.substr(0, nl);
      starts.push_back(journal.size());
      append_record(journal, first ? journal_record_type::header : journal_record_type::entry, line);
      first = false;
      body = nl == std::string_view::npos ? std::string_view() : body.substr(nl + 1);
    }
    switch ((flags >> 1) & 3) {
      case 1: journal.resize(starts.back() + (journal.size() - starts.back()) / 2); break;
      case 2: journal.resize(starts.back()); break;
      case 3:
        if (!journal.empty())
          journal[(flags * 7919u) % journal.size()] ^= 0x20;
        break;
      default: break;
    }
  }
  auto files = std::make_shared<ad::fuzz::memory_layer::files_map>();
  (*files)[at_root(journal_file_name)] = journal;
  if (flags & 8)
    (*files)[at_root(mark_file_name)] = encode_mark(flags >> 4);
  check_store(files);
  return 0;
}

