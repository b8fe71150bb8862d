#pragma once
// Test-only fault injection for the work log's fault loop (docs/test-hooks.md):
// with AD_TEST_WORK_LOG_FAULT=<k>:<mode> the k-th row write of this process
// (every append counts one, 1-based) goes wrong the way a full disk or a
// crash makes it:
//   once   half the bytes are written, then the write fails with ENOSPC;
//          later writes succeed (space came back);
//   full   the same, and every later write fails with ENOSPC writing
//          nothing, until the process ends (space comes back at a restart);
//   crash  half the bytes are written, then the process ends with
//          _exit(86), as a crash would.
// Unset or malformed: nothing happens. The variable is read at every write
// (a test may change it; writes are counted anew for each setting). Safe
// from any thread; never throws.

#include <cstdint>
#include <string_view>

namespace ad::runtime {

enum class work_log_write_fault : uint8_t {
  none,
  cut,     // write the first half, then fail with ENOSPC
  nothing, // write nothing, fail with ENOSPC
  crash,   // write the first half, then _exit(86)
};

// Counts one row write and says what to do with it.
work_log_write_fault next_work_log_write_fault();

// The fault of write number n (1-based) under the setting `spec`
// ("<k>:once|full|crash"); pure, for tests of the rule itself.
work_log_write_fault work_log_fault_for(std::string_view spec, uint64_t n);

} // namespace ad::runtime
