#pragma once
// Helpers shared by the spool, follower and seal tests: numbered lines of a
// fixed size and whole-file reads. Test-only.

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/core/files.hpp"

namespace ad::runtime::spool_test {

// "line-00042": 10 bytes, so "[stdout] line-00042\n" is 20 bytes in the spool.
inline std::string numbered(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "line-%05d", i);
  return buf;
}

inline std::string spooled(int i) { return "[stdout] " + numbered(i) + "\n"; }

inline std::string content(const std::filesystem::path& p) {
  auto t = read_file(p, 256u << 20);
  return t.is_ok() ? *t : std::string{};
}

} // namespace ad::runtime::spool_test
