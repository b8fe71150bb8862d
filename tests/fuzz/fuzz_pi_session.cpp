// A pi session file (JSON Lines), read the way the attempt follows pi's
// phase: written to a file and read back in small blocks, so entries
// straddle block boundaries. Invariant: reading it in another block size
// gives the same state.
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "runtime/agents/pi_session.hpp"
#include "tests/fuzz/fuzz_target.hpp"

AD_FUZZ_TARGET(pi_session) {
  using namespace ad::runtime;
  static const std::filesystem::path file =
    std::filesystem::temp_directory_path()
    / ("ad-fuzz-pi-" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(input.data(), static_cast<std::streamsize>(input.size()));
  }
  pi_read_options small;
  small.block_size = 64 + input.size() % 193;
  small.max_entry_bytes = 4096;
  small.max_header_bytes = 4096;
  pi_read_options large = small;
  large.block_size = 1 << 16;
  auto a = read_pi_session_state(file, nullptr, small);
  auto b = read_pi_session_state(file, nullptr, large);
  std::error_code ec;
  std::filesystem::remove(file, ec);
  ad::fuzz::fuzz_require(a == b, "the phase depends on the read block size: "
                                   + std::string(to_string(a.phase)) + " (" + a.reason + ") vs "
                                   + std::string(to_string(b.phase)) + " (" + b.reason + ")");
  return 0;
}
