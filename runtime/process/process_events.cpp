#include "runtime/process/process_events.hpp"

namespace ad::runtime {

const char* to_string(output_stream s) noexcept {
  return s == output_stream::stdout_stream ? "stdout" : "stderr";
}

const char* to_string(exit_kind k) noexcept {
  switch (k) {
    case exit_kind::exited: return "exited";
    case exit_kind::signaled: return "signaled";
    case exit_kind::launch_failed: return "launch-failed";
  }
  return "unknown";
}

} // namespace ad::runtime
