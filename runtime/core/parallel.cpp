#include "runtime/core/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace ad::runtime {

unsigned useful_threads() {
  return std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
}

void parallel_for(std::size_t count, unsigned threads,
                  const std::function<void(std::size_t)>& work) {
  const auto helpers = static_cast<std::size_t>(std::max(threads, 1u)) - 1;
  if (helpers == 0 || count < 2) {
    for (std::size_t i = 0; i < count; ++i)
      work(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first;
  std::mutex first_mutex;
  auto drain = [&] {
    for (std::size_t i = next++; i < count && !failed; i = next++) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard lock(first_mutex);
        if (!first)
          first = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(std::min(helpers, count - 1));
  for (std::size_t t = 0; t < helpers && t + 1 < count; ++t) {
    try {
      pool.emplace_back(drain);
    } catch (const std::system_error&) {
      break; // no thread to be had: the ones running and the caller do it all
    }
  }
  drain();
  for (auto& t : pool)
    t.join();
  if (first)
    std::rethrow_exception(first);
}

} // namespace ad::runtime
