#include "runtime/core/heap_tuning.hpp"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <future>
#include <limits>
#include <mutex>
#include <string_view>
#include <vector>

namespace ad::runtime {

namespace {

std::atomic<std::size_t> current_step{0}; // 0: glibc's own settings

constexpr std::string_view hugetlb = "glibc.malloc.hugetlb=";

constexpr std::string_view arena_max = "glibc.malloc.arena_max=";

// GLIBC_TUNABLES is a colon-separated list of name=value.
bool sets_tunable(std::string_view tunables, std::string_view name) {
  std::size_t at = 0;
  while (at <= tunables.size()) {
    auto end = tunables.find(':', at);
    if (end == std::string_view::npos)
      end = tunables.size();
    if (tunables.substr(at, end - at).starts_with(name))
      return true;
    at = end + 1;
  }
  return false;
}

} // namespace

bool heap_tuning_wanted(std::string_view command) {
  return command == "run" || command == "status" || command == "serve";
}

std::optional<heap_tuning_env> heap_tuning_start(const char* tunables) {
  heap_tuning_env out;
  std::string wanted = std::string(hugetlb) + "1";
  if (tunables == nullptr) {
    out.tunables = wanted;
    out.saved = "-";
    return out;
  }
  std::string_view given = tunables;
  if (sets_tunable(given, hugetlb))
    return std::nullopt;
  out.tunables = given.empty() ? wanted : std::string(given) + ":" + wanted;
  out.saved = "=" + std::string(given);
  return out;
}

heap_tuning_undo heap_tuning_restore(const char* saved) {
  heap_tuning_undo out;
  if (saved == nullptr)
    return out;
  out.second_start = true;
  std::string_view s = saved;
  if (s.starts_with('='))
    out.tunables = std::string(s.substr(1));
  return out;
}

bool large_heap_steps_wanted(std::uintmax_t state_bytes) {
  return state_bytes >= large_state_bytes;
}

bool grow_heap_in_steps(std::size_t step) {
  if (step > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    return false;
  if (::mallopt(M_TOP_PAD, static_cast<int>(step)) != 1)
    return false;
  current_step = step;
  return true;
}

bool grow_heap_for_state(std::uintmax_t state_bytes) {
  return large_heap_steps_wanted(state_bytes) && grow_heap_in_steps(heap_large_step);
}

void heap_after_admission() {
  std::size_t large = heap_large_step;
  if (current_step.compare_exchange_strong(large, heap_small_step))
    ::mallopt(M_TOP_PAD, static_cast<int>(heap_small_step));
}

bool heap_arenas_chosen(const char* arena_max_var, const char* tunables) {
  return arena_max_var != nullptr || (tunables != nullptr && sets_tunable(tunables, arena_max));
}

bool limit_heap_arenas() {
  if (heap_arenas_chosen(std::getenv("MALLOC_ARENA_MAX"), std::getenv("GLIBC_TUNABLES")))
    return false;
  return ::mallopt(M_ARENA_MAX, heap_arenas) == 1;
}

std::thread start_on_own_heap(std::function<void()> work) {
  std::promise<void> taken;
  auto heap_taken = taken.get_future();
  // The thread holds the promise, so the state it shares with the future
  // outlives its set_value whenever this returns.
  std::thread thread([taken = std::move(taken), work = std::move(work)]() mutable {
    // Volatile, so that the pair is not optimised away: the allocation is
    // the point.
    void* volatile first = std::malloc(1);
    std::free(first);
    taken.set_value();
    work();
  });
  heap_taken.wait();
  return thread;
}

void keep_until_exit(std::shared_ptr<const void> value) {
  // Made once and never deleted: the point is to free nothing at exit.
  static auto* kept = new std::vector<std::shared_ptr<const void>>;
  static std::mutex guard;
  std::lock_guard lock(guard);
  kept->push_back(std::move(value));
}

} // namespace ad::runtime
