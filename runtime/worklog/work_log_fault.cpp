#include "runtime/worklog/work_log_fault.hpp"

#include <charconv>
#include <cstdlib>
#include <mutex>
#include <string>

namespace ad::runtime {

work_log_write_fault work_log_fault_for(std::string_view spec, uint64_t n) {
  auto colon = spec.find(':');
  if (colon == std::string_view::npos)
    return work_log_write_fault::none;
  uint64_t k = 0;
  auto digits = spec.substr(0, colon);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
  if (ec != std::errc() || end != digits.data() + digits.size() || k == 0 || n < k)
    return work_log_write_fault::none;
  std::string_view mode = spec.substr(colon + 1);
  if (mode == "once")
    return n == k ? work_log_write_fault::cut : work_log_write_fault::none;
  if (mode == "full")
    return n == k ? work_log_write_fault::cut : work_log_write_fault::nothing;
  if (mode == "crash")
    return n == k ? work_log_write_fault::crash : work_log_write_fault::none;
  return work_log_write_fault::none;
}

work_log_write_fault next_work_log_write_fault() {
  const char* spec = std::getenv("AD_TEST_WORK_LOG_FAULT");
  if (spec == nullptr || *spec == '\0')
    return work_log_write_fault::none;
  // Counted per setting: a test that sets another one starts from 1.
  static std::mutex mutex;
  static std::string counted;
  static uint64_t writes = 0;
  std::lock_guard lock(mutex);
  if (counted != spec) {
    counted = spec;
    writes = 0;
  }
  return work_log_fault_for(counted, ++writes);
}

} // namespace ad::runtime
