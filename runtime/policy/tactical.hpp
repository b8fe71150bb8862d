#pragma once
// Tactical escalation (SPEC section 7): policy patterns matched against a
// failed attempt's evidence, terminal diagnostics and stream tail; the
// structured diagnostic events of that analysis; write-set snapshots taken
// before and after each attempt and their per-attempt diff; and the
// intervention context (existing files, which earlier attempts created or
// modified them, the pattern's instruction) that is persisted on the task as
// the state module's intervention_context and rendered into the next prompt.
// Pure except take_write_set_snapshot, which stats and hashes real files.
// Errors: take_write_set_snapshot never fails as a whole: a file that cannot
// be read is recorded as existing with an empty hash; compile errors of
// patterns cannot happen here because parse_policy validated them.

#include <string>
#include <map>
#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/json.hpp"
#include "runtime/policy/policy.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

// What the analysis looks at.
struct tactical_input {
  std::string evidence;                 // the classified failure line
  std::vector<std::string> diagnostics; // terminal diagnostics
  std::vector<std::string> stream_tail; // last lines of stream.log
};

// One step of the analysis, for the work log and the task's trace.
struct tactical_event {
  std::string kind;    // attempt_failed | matched | no_match
  std::string message; // "attempt failed, analysing" ...
  std::vector<std::string> pattern_ids;
  std::string matched_line;
};
json to_json(const tactical_event& e);
result<tactical_event> tactical_event_from_json(const json& j);

struct tactical_analysis {
  std::vector<std::string> matched_ids; // policy order
  std::vector<std::string> instructions;
  std::string matched_line;             // the first line that matched
  // The paths the matching lines name, as written, first seen first: the
  // first capture group of a matching expression ("file already exists:?
  // \s*['\"]?([^\s'\"]+)"). An expression without a group names none.
  std::vector<std::string> named_paths;
  std::vector<tactical_event> events;
};

tactical_analysis analyse_tactical(const std::vector<tactical_pattern>& patterns,
                                   const tactical_input& input);

// The paths a failure's lines name (analyse_tactical's named_paths), for the
// caller that gathers what is known about them before the supervisor decides.
std::vector<std::string> tactical_named_paths(const std::vector<tactical_pattern>& patterns,
                                              const tactical_input& input);

// Snapshot of the write set (state's file_snapshot: path, exists, size,
// mtime, sha256). Paths keep the order given.
std::vector<file_snapshot> take_write_set_snapshot(const std::vector<std::string>& paths);

struct write_set_diff {
  std::vector<std::string> created;
  std::vector<std::string> modified;
  std::vector<std::string> deleted;
};
json to_json(const write_set_diff& d);

write_set_diff diff_write_set(const std::vector<file_snapshot>& before,
                              const std::vector<file_snapshot>& after);

// One write-set file as the intervention context shows it.
struct intervention_file {
  std::string path;
  std::vector<std::string> created_by;  // attempt ids, in attempt order
  std::vector<std::string> modified_by;
};

// The rich, derived view of an intervention: built from the persisted
// intervention_context and the task's per-attempt write-set snapshots, so
// it is the same after a restart.
struct intervention_view {
  std::vector<std::string> pattern_ids;
  std::string instruction;
  std::vector<named_file> named_files; // what the error's own message named
  std::vector<intervention_file> existing_files;
};
json to_json(const intervention_view& v);

// The context to persist after a tactical match. `current` is the write
// set as it is now; `history` the task's write_sets (attempt id -> before and
// after), whose attempt ids sort in attempt order.
// `named`: what was found about analysis.named_paths when the failure came
// in (the task actor gathers it: runtime/run/named_paths.hpp); a named path
// without a fact is kept as written, not known to exist.
intervention_context build_intervention(const tactical_analysis& analysis,
                                        const std::vector<file_snapshot>& current,
                                        const std::map<std::string, write_set_snapshot>& history,
                                        millis now,
                                        const std::vector<named_file>& named = {});

intervention_view view_intervention(const intervention_context& ctx,
                                    const std::map<std::string, write_set_snapshot>& history);

// The block appended to the next prompt: header, instruction, the files the
// error named (whether each exists now, and which earlier attempt or
// completed predecessor created or changed it), the write set's files with
// their history.
std::string render_intervention(const intervention_view& view, std::string_view header);

} // namespace ad::runtime
