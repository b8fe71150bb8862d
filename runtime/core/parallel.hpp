#pragma once
// Runs independent pieces of one job on a few threads at once: the reads of
// many small files (a workspace scan) wait on the kernel more than on the
// processor, and a second core halves that wait. The threads live only for
// the call. No state.

#include <cstddef>
#include <functional>
#include <future>
#include <system_error>
#include <type_traits>

namespace ad::runtime {

// How many threads parallel_for uses when asked for "as many as help": the
// machine's cores, at least 1 and at most 8.
unsigned useful_threads();

// Calls work(i) once for every i in [0, count), on up to `threads` threads
// (the caller's among them), and returns when every call has returned. Calls
// for different i must not share anything they change. When a call throws,
// no new call starts and the first exception is rethrown here once the other
// threads have stopped.
void parallel_for(std::size_t count, unsigned threads,
                  const std::function<void(std::size_t)>& work);

// Starts work() on a thread of its own and returns its future; where no
// thread is to be had (std::async throws), work() runs when the future is
// asked for instead, so the caller's result is the same either way.
template <class F>
std::future<std::invoke_result_t<F>> start_beside(F work) {
  try {
    return std::async(std::launch::async, work);
  } catch (const std::system_error&) {
    return std::async(std::launch::deferred, std::move(work));
  }
}

} // namespace ad::runtime
