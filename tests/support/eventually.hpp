#pragma once
// Waits until cond() holds or the timeout passes (polling every 5 ms);
// true when it held. For tests that watch another thread or process.

#include <chrono>
#include <thread>

namespace ad::test {

template <class F>
bool eventually(F cond, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (cond())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return cond();
}

} // namespace ad::test
