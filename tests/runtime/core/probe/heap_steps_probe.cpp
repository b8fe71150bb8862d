// heap-steps-probe: how far glibc's main heap grows at a time, first as
// glibc starts, for a small state (grow_heap_for_state changes nothing),
// for a large one, then after heap_after_admission()
// (runtime/core/heap_tuning.hpp). Built without the
// sanitizers, whose allocators take no heap steps, so the suite measures
// glibc's even in the sanitized build. Prints one line:
//   default BYTES small-state BYTES large BYTES after-admission BYTES
// each the growth of the program break (sbrk) when small blocks fill the
// heap; exit 1 when the break never moved within 1 GiB of blocks.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/core/heap_tuning.hpp"

namespace {

std::vector<void*> blocks;

// Fills the heap with 1 KiB blocks until the break moves; how far it moved.
long next_growth() {
  auto* before = static_cast<char*>(::sbrk(0));
  for (std::size_t total = 0; total < (std::size_t{1} << 30); total += 1024) {
    blocks.push_back(std::malloc(1024));
    auto* now = static_cast<char*>(::sbrk(0));
    if (now != before)
      return now - before;
  }
  return -1;
}

} // namespace

int main() {
  blocks.reserve(std::size_t{1} << 20); // mapped on its own: over the mmap threshold
  // The first growth may be the heap's start; the second is the step.
  next_growth();
  long small = next_growth();
  ad::runtime::heap_after_admission(); // without large steps: nothing
  bool small_state = ad::runtime::grow_heap_for_state(ad::runtime::large_state_bytes - 1);
  long still_small = next_growth();
  if (small_state || !ad::runtime::grow_heap_for_state(ad::runtime::large_state_bytes)) {
    std::fprintf(stderr, "heap-steps-probe: large steps %s\n",
                 small_state ? "set for a small state" : "refused by the allocator");
    return 1;
  }
  long large = next_growth();
  ad::runtime::heap_after_admission();
  next_growth(); // what is left of the large step
  long after = next_growth();
  std::printf("default %ld small-state %ld large %ld after-admission %ld\n", small, still_small,
              large, after);
  for (void* b : blocks)
    std::free(b);
  return small < 0 || still_small < 0 || large < 0 || after < 0 ? 1 : 0;
}
