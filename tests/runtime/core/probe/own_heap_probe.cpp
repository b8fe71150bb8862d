// own-heap-probe: whether a thread started by start_on_own_heap()
// (runtime/core/heap_tuning.hpp) allocates from a heap other than the main
// thread's, while three more threads and the main thread allocate at once.
// With the argument "limit" the heaps are limited first
// (limit_heap_arenas()); "one" allows a single heap, where every thread has
// to share the main one. Built without the sanitizers, whose allocators have
// no arenas. Prints one line:
//   main_from_main 0|1 own_from_main 0|1
// A block's heap is read from glibc's chunk header: the word before the
// block holds its size, whose bit 2 (NON_MAIN_ARENA) is set for a block of
// any heap but the main one.
#include <malloc.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime/core/heap_tuning.hpp"

namespace {

bool from_main_heap(const void* block) {
  std::size_t size_field = 0;
  std::memcpy(&size_field, static_cast<const char*>(block) - sizeof(std::size_t),
              sizeof size_field);
  return (size_field & 0x4) == 0;
}

// Allocates in small pieces until told to stop; reports its first block's
// heap.
void allocate_until(const std::atomic<bool>& stop, std::atomic<int>* from_main) {
  std::vector<void*> blocks;
  blocks.push_back(std::malloc(48));
  if (from_main != nullptr)
    *from_main = from_main_heap(blocks.front()) ? 1 : 0;
  while (!stop) {
    blocks.push_back(std::malloc(48));
    if (blocks.size() > 4096) {
      for (std::size_t i = 1; i < blocks.size(); ++i)
        std::free(blocks[i]);
      blocks.resize(1);
    }
  }
  for (void* b : blocks)
    std::free(b);
}

} // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "limit") == 0 && !ad::runtime::limit_heap_arenas())
    return 1;
  if (std::strcmp(mode, "one") == 0 && ::mallopt(M_ARENA_MAX, 1) != 1)
    return 1;
  std::atomic<bool> stop{false};
  std::atomic<int> own_from_main{-1};
  // The main thread is busy with its heap from the start, as a restart's
  // reading of the state is.
  std::thread own = ad::runtime::start_on_own_heap([&] { allocate_until(stop, &own_from_main); });
  std::vector<std::thread> others;
  for (int i = 0; i < 3; ++i)
    others.emplace_back([&] { allocate_until(stop, nullptr); });
  void* mine = std::malloc(48);
  const bool main_from_main = from_main_heap(mine);
  std::free(mine);
  while (own_from_main < 0)
    std::this_thread::yield();
  stop = true;
  own.join();
  for (auto& t : others)
    t.join();
  std::printf("main_from_main %d own_from_main %d\n", main_from_main ? 1 : 0,
              own_from_main.load());
  return 0;
}
