#pragma once
// The last rendered output line of an attempt (docs/attempt-files.md: the
// attempt folder's normalized-output.log, beside its locator.json), for the
// live views of a run. Reads at most the file's last `max_bytes`; an
// attempt with no such file or no complete line yet gives "". Never throws.

#include <cstddef>
#include <string>

namespace ad::runtime {

// `locator` is the attempt's locator.json path.
std::string last_rendered_line(const std::string& locator, size_t max_bytes = 4096);

} // namespace ad::runtime
