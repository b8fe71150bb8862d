// heap-arenas-probe: how many heaps (glibc's arenas) eight threads that
// allocate at the same time end up using, after limit_heap_arenas()
// (runtime/core/heap_tuning.hpp) with the argument "limit", or with glibc's
// own settings without it. Built without the sanitizers, whose allocators
// have no arenas. Prints one line:
//   limited 0|1 heaps N
// N counted from malloc_info's <heap nr=...> entries.
#include <malloc.h>

#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "runtime/core/heap_tuning.hpp"

int main(int argc, char** argv) {
  bool limited = argc > 1 && std::strcmp(argv[1], "limit") == 0 && ad::runtime::limit_heap_arenas();
  constexpr int threads = 8;
  // Every thread holds its blocks until all have allocated, so none finds
  // the heap of a thread that ended free for it.
  std::barrier all(threads);
  std::vector<std::thread> running;
  for (int i = 0; i < threads; ++i)
    running.emplace_back([&all] {
      std::vector<void*> blocks;
      for (int j = 0; j < 64; ++j)
        blocks.push_back(std::malloc(512));
      all.arrive_and_wait();
      for (void* b : blocks)
        std::free(b);
    });
  for (auto& t : running)
    t.join();

  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* info = ::open_memstream(&text, &size);
  if (info == nullptr || ::malloc_info(0, info) != 0)
    return 1;
  std::fclose(info);
  int heaps = 0;
  for (std::string_view rest(text, size); rest.find("<heap nr=") != std::string_view::npos;
       ++heaps)
    rest.remove_prefix(rest.find("<heap nr=") + 1);
  std::free(text);
  std::printf("limited %d heaps %d\n", limited ? 1 : 0, heaps);
  return heaps > 0 ? 0 : 1;
}
