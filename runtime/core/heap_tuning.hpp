#pragma once
// agent-dispatch's own heap: transparent huge pages, the steps it grows in,
// and how many heaps its threads share (heap_arenas, below).
//
// Reading a large state allocates a few hundred megabytes in small pieces,
// and where the kernel gives huge pages only on advice ("madvise", Debian's
// default) each 4 KiB page of them is faulted in on its own. glibc advises
// huge pages for its heap under the tunable glibc.malloc.hugetlb=1, and it
// reads its tunables only when a process starts. So agent-dispatch starts
// itself once more with the tunable added (heap_tuning_start), and that
// second start puts GLIBC_TUNABLES back as the user gave it
// (heap_tuning_restore) before it does anything else: no keeper, agent or
// notify command inherits the setting. A glibc.malloc.hugetlb the user set
// (=0 turns this off) is left alone. tools/cli/main.cpp carries it out.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace ad::runtime {

// Whether `command` (a subcommand's name) gets the second start: those that
// read the durable state (run, status, serve). The second start costs a
// program load (about 16 ms here), which the quick commands do without.
bool heap_tuning_wanted(std::string_view command);

// Carries the user's GLIBC_TUNABLES into the second start: "=VALUE", or "-"
// when it was unset.
inline constexpr const char* heap_tuning_saved_var = "AGENT_DISPATCH_SAVED_TUNABLES";

struct heap_tuning_env {
  std::string tunables;  // GLIBC_TUNABLES of the second start
  std::string saved;     // heap_tuning_saved_var of the second start
};

// The environment to start again with, given this start's GLIBC_TUNABLES
// (nullptr: unset); nullopt when the user set glibc.malloc.hugetlb.
std::optional<heap_tuning_env> heap_tuning_start(const char* tunables);

struct heap_tuning_undo {
  bool second_start = false;            // the saved variable was there
  std::optional<std::string> tunables;  // GLIBC_TUNABLES to put back; nullopt: unset it
};

// What the second start puts back, given heap_tuning_saved_var (nullptr:
// unset, so this is a first start and nothing is put back).
heap_tuning_undo heap_tuning_restore(const char* saved);

// How far a heap grows at a time. glibc grows a heap by what a request
// needs plus M_TOP_PAD (128 KiB unless set), each growth a system call (brk
// for the main heap, mprotect for a thread's) whose fresh pages fault in
// one at a time, and reading and copying the state of 10,000 tasks on
// three threads at once grew the heaps thousands of times (docs/bench.md:
// a restart to its first admission 1.57 s against 1.36 s in large steps,
// `status` 0.61 s against 0.55 s). So `run` and `status` read a large state (large_state_bytes of
// snapshot and journal, about 4,000 tasks) in large steps, and `run` goes
// back to small steps at its first admission: a thread's heap keeps up to a
// step of freed memory at its top, and setting the step fixes glibc's mmap
// threshold at 128 KiB for the rest of the process, where it would
// otherwise rise with the blocks freed. A small state keeps glibc's own
// settings.
inline constexpr std::size_t heap_large_step = std::size_t{64} << 20;
inline constexpr std::size_t heap_small_step = std::size_t{128} << 10; // glibc's default
inline constexpr std::uintmax_t large_state_bytes = std::uintmax_t{8} << 20;

bool large_heap_steps_wanted(std::uintmax_t state_bytes);

// mallopt(M_TOP_PAD, step); false when the allocator refused it (a
// sanitizer's allocator takes no such setting).
bool grow_heap_in_steps(std::size_t step);

// Before a state of `state_bytes` is read: large steps when it is large
// (large_heap_steps_wanted); true when they were set.
bool grow_heap_for_state(std::uintmax_t state_bytes);

// `run` calls this at each admission: the first after large steps puts the
// heap back in small steps (the state is read and copied by then); without
// large steps it changes nothing. Thread-safe.
void heap_after_admission();

// How many heaps (glibc's arenas) the threads of a long-running command
// share. glibc gives threads up to 8 heaps per core, and a block freed by
// one thread goes back to the heap of the thread that allocated it: with
// the dozen threads of `run` (the actors' workers, the reactor, the
// scanner's helpers) the heaps kept their freed pieces apart, and the
// process held nearly twice the heap it used (docs/bench.md, 2026-12-07: a
// 10,000-task run's peak RSS 219.7 MB with four heaps, 167.0 MB with two,
// its own CPU the same). A restart, whose threads read the state and the
// workspace at once, pays for it only where the two share a heap
// (start_on_own_heap, below).
inline constexpr int heap_arenas = 2;

// Whether the user chose the number of heaps: MALLOC_ARENA_MAX or
// glibc.malloc.arena_max in GLIBC_TUNABLES (either may be nullptr: unset).
bool heap_arenas_chosen(const char* arena_max, const char* tunables);

// Before the first thread starts: at most heap_arenas heaps, unless the
// user chose (heap_arenas_chosen). False when the allocator refused (a
// sanitizer's allocator takes no such setting) or the user chose.
bool limit_heap_arenas();

// Starts `work` on a thread of its own and returns once that thread has
// taken its heap. glibc ties a thread to a heap at the thread's first
// allocation: a new heap while fewer than the limit exist, otherwise
// whichever existing heap is free at that moment, the main thread's among
// them. A restart's early scan allocates as busily as the main thread's
// reading of a large state beside it, and when it drew the main thread's heap the
// two took turns at its lock (about 5,600 futex calls on the main thread;
// docs/bench.md, 2026-12-07: a restart over 10,000 tasks 1.22 s against 1.09 s
// in the median). Started before any other thread allocates, it takes the
// second heap: start it first.
std::thread start_on_own_heap(std::function<void()> work);

// Keeps `value` alive until the process ends and never frees it. For a
// one-shot command's large readings (`status` over a state of thousands of
// tasks): freeing them piece by piece only delays its exit, and the process
// ends right after. What is kept stays reachable from a static pointer, so a
// leak checker at exit does not report it. Not for anything that runs on
// (serve, run): what it keeps is never given back.
void keep_until_exit(std::shared_ptr<const void> value);

} // namespace ad::runtime
