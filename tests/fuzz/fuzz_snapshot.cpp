// The durable store's load path on a fuzzed snapshot, state.json
// (invariants: tests/fuzz/store_check.hpp, and the state's own JSON text
// reads back to the same state).
#include "runtime/state/model_json.hpp"
#include "runtime/state/journal.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tests/fuzz/store_check.hpp"

using namespace ad::runtime;
using ad::fuzz::at_root;
using ad::fuzz::check_store;
using ad::fuzz::fuzz_identity;

// Input: the text of state.json, beside a journal that starts at entry 0.
AD_FUZZ_TARGET(snapshot) {
  auto direct = state_from_json_text(input, "state.json");
  if (direct) {
    auto round = state_from_json_text(state_to_json_text(*direct), "state.json");
    ad::fuzz::fuzz_require(round.is_ok() && *round == *direct,
                           "a state does not survive its own JSON text");
  }
  auto files = std::make_shared<ad::fuzz::memory_layer::files_map>();
  (*files)[at_root(snapshot_file_name)] = std::string(input);
  (*files)[at_root(journal_file_name)] = encode_record(
    journal_record_type::header,
    dump_json(json{{"format", state_format_version},
                   {"workspace", {{"path", fuzz_identity.path}, {"id", fuzz_identity.id}}},
                   {"base_seq", 0}}));
  check_store(files);
  return 0;
}
