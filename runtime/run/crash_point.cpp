#include "runtime/run/crash_point.hpp"

#include <cstdlib>
#include <string>
#include <unistd.h>

namespace ad::runtime {

bool crash_point_matches(std::string_view wanted, std::string_view name, std::string_view role) {
  if (wanted.empty() || !wanted.starts_with(name))
    return false;
  auto rest = wanted.substr(name.size());
  return rest.empty() || (!role.empty() && rest.size() == role.size() + 1 && rest[0] == ':' &&
                          rest.substr(1) == role);
}

void crash_point(std::string_view name, std::string_view role) {
  static const std::string wanted = [] {
    const char* v = std::getenv("AD_TEST_CRASH_AT");
    return std::string(v ? v : "");
  }();
  if (crash_point_matches(wanted, name, role))
    ::_exit(crash_point_exit_code);
}

} // namespace ad::runtime
