#pragma once
// A signal's name as people read it ("SIGKILL", "SIGTERM"; "SIG77" for a
// number without one). Pure; never throws.

#include <string>

namespace ad::runtime {

std::string signal_name(int signal);

} // namespace ad::runtime
