#pragma once
// The invariant both state targets check (fuzz_journal, fuzz_snapshot): on
// the fuzzed files, durable_store::open() either fails with a status naming a
// file of the state root, or loads a state that then takes a commit, and a
// reopen sees exactly that state plus the commit.
#include "runtime/core/json.hpp"
#include "runtime/state/durable_store.hpp"
#include "runtime/state/journal.hpp"
#include "runtime/state/model_json.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tests/fuzz/memory_layer.hpp"

namespace ad::fuzz {

using namespace ad::runtime;

inline const workspace_identity fuzz_identity{"/fuzz/ws", "0123456789abcdef"};
inline const std::filesystem::path fuzz_root = "/fuzz/state";

inline std::string at_root(const char* name) { return (fuzz_root / name).string(); }

inline void check_store(const std::shared_ptr<ad::fuzz::memory_layer::files_map>& files) {
  auto layer = std::make_shared<ad::fuzz::memory_layer>(files);
  auto store = durable_store::open(fuzz_root, fuzz_identity, layer);
  if (!store) {
    const auto& e = store.error();
    ad::fuzz::fuzz_require(e.is_corruption() || e.is_invalid_argument() || e.is_io_error(),
                           "an unexpected kind of load error: " + e.to_string());
    ad::fuzz::fuzz_require(e.message().find(fuzz_root.string()) != std::string::npos,
                           "a load error names no file of the state root: " + e.message());
    std::string inputs;
    for (const auto& [name, text] : *files)
      inputs += text;
    ad::fuzz::fuzz_require_plain(e.message(), inputs);
    return;
  }
  state_model before = (*store)->state();
  uint64_t seq = (*store)->last_seq();
  auto done = (*store)->commit({{set_counter{"fuzz/01_task", "fuzz", 1}}});
  ad::fuzz::fuzz_require(done.is_ok(), "a commit after a good load failed");
  (void) apply_change(before, set_counter{"fuzz/01_task", "fuzz", 1});
  store->reset();
  auto again = durable_store::open(fuzz_root, fuzz_identity, layer);
  ad::fuzz::fuzz_require(again.is_ok(), "the store does not reopen after a commit: "
                                          + (again ? std::string() : again.error().to_string()));
  ad::fuzz::fuzz_require((*again)->last_seq() == seq + 1, "the commit's entry is not the next seq");
  ad::fuzz::fuzz_require((*again)->state() == before, "the reopened state differs");
}

} // namespace ad::fuzz

