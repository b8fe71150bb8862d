#pragma once
// The last rendered output line of an attempt (docs/attempt-files.md: the
// attempt folder's normalized-output.log, beside its locator.json), for the
// live views of a run. Reads at most the file's last `max_bytes`; an
// attempt with no such file or no complete line yet gives "". A run event
// names a new attempt before its folder exists, so the folder is also found
// by the attempt's identity under the runs folder (attempt_output_reader
// remembers what it found). Tokens so far are the `usage` of its
// locator.json (refreshed while they grow, docs/attempt-files.md). Never
// throws.

#include <cstddef>
#include <map>
#include <string>

#include "runtime/core/token_usage.hpp"

namespace ad::runtime {

// `locator` is the attempt's locator.json path.
std::string last_rendered_line(const std::string& locator, size_t max_bytes = 4096);

// What an attempt's live views show: its last rendered line and what it
// has spent so far.
struct attempt_live {
  std::string output;
  token_usage usage;
};

// The `usage` of a locator.json (empty when it has none or cannot be read).
token_usage locator_usage(const std::string& locator);
// Both of the above for the attempt of a locator.json.
attempt_live read_attempt_live(const std::string& locator);

// The folder "<UTC stamp>__<identity>" under `runs_dir`, the newest when
// several; "" when none.
std::string find_attempt_folder(const std::string& runs_dir, const std::string& identity);

// Reads the last rendered line of an attempt by identity, or by its locator
// when known. Not thread-safe: one reader per thread.
class attempt_output_reader {
public:
  explicit attempt_output_reader(std::string runs_dir) : runs_dir_(std::move(runs_dir)) {}
  std::string operator()(const std::string& identity, const std::string& locator);
  attempt_live live(const std::string& identity, const std::string& locator);

private:
  // The locator.json path: `locator` when known, else found by identity.
  std::string locator_of(const std::string& identity, const std::string& locator);

  std::string runs_dir_;
  std::map<std::string, std::string> locators_;  // identity -> its locator.json
};

} // namespace ad::runtime
