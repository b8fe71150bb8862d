#pragma once
// Reads the journal's entries from their text into typed changes with no
// JSON tree between: each change's members go straight into their structs
// (task_json.hpp's kinds), as a snapshot's tasks do (task_reader.hpp). A
// tree per entry, decoded and freed, was most of the replay's time in a
// restart and in `status`.
//
// This is the one definition of how a change's JSON is read:
// change_from_json and changes_from_json_text (change.hpp) go through it
// too. change_json.cpp writes the same names.

#include <cstdint>
#include <string_view>
#include <vector>

#include "runtime/core/status.hpp"
#include "runtime/state/change.hpp"

namespace ad::runtime {

struct journal_entry {
  uint64_t seq = 0;
  std::vector<state_change> changes;
};

// One entry's payload, {"changes": [<change>...], "seq": <unsigned>}, read
// as the replay after the state's entry `held` needs it. An entry other than
// held + 1 comes back with its seq and no changes, which are not looked into
// beyond their JSON (one the state holds is skipped, one further on is out
// of order): a damaged change there is no error. Errors are corruption()
// naming `source`: invalid JSON, an entry without seq or changes, an
// unknown or malformed change (with the member: "changes[2].decision
// .grade: holds 2.5 where an integer belongs").
result<journal_entry> read_journal_entry(std::string_view text, std::string_view source,
                                         uint64_t held);

} // namespace ad::runtime
