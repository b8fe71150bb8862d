#include "runtime/core/signals.hpp"

#include <cstring>

namespace ad::runtime {

std::string signal_name(int signal) {
  const char* abbrev = signal > 0 ? ::sigabbrev_np(signal) : nullptr;
  return abbrev ? std::string("SIG") + abbrev : "SIG" + std::to_string(signal);
}

} // namespace ad::runtime
