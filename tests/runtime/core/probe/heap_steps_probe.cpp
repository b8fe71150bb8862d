// heap-steps-probe: how far glibc's main heap grows at a time, first as
// glibc starts, then after grow_heap_in_steps(heap_large_step), then after
// heap_after_admission() (runtime/core/heap_tuning.hpp). Built without the
// sanitizers, whose allocators take no heap steps, so the suite measures
// glibc's even in the sanitized build. Prints one line:
//   default BYTES large BYTES after-admission BYTES
// each the growth of the program break (sbrk) when small blocks fill the
// heap; exit 1 when the break never moved within 1 GiB of blocks.
#include <unistd.h>

#include <cstdint>
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
  if (!ad::runtime::grow_heap_in_steps(ad::runtime::heap_large_step)) {
    std::fprintf(stderr, "heap-steps-probe: the allocator refused M_TOP_PAD\n");
    return 1;
  }
  long large = next_growth();
  ad::runtime::heap_after_admission();
  next_growth(); // what is left of the large step
  long after = next_growth();
  std::printf("default %ld large %ld after-admission %ld\n", small, large, after);
  for (void* b : blocks)
    std::free(b);
  return small < 0 || large < 0 || after < 0 ? 1 : 0;
}
