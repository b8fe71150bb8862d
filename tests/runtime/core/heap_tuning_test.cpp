#include "runtime/core/heap_tuning.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

namespace ad::runtime {
namespace {

// The second start gets the tunable added to what the user gave, and the
// user's value (or its absence) travels with it to be put back.
TEST(heap_tuning, the_second_start_adds_the_tunable_and_carries_the_users_value) {
  auto unset = heap_tuning_start(nullptr);
  ASSERT_TRUE(unset);
  EXPECT_EQ(unset->tunables, "glibc.malloc.hugetlb=1");
  EXPECT_EQ(unset->saved, "-");

  auto empty = heap_tuning_start("");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->tunables, "glibc.malloc.hugetlb=1");
  EXPECT_EQ(empty->saved, "=");

  auto other = heap_tuning_start("glibc.malloc.check=3:glibc.malloc.hugetlbx=2");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->tunables, "glibc.malloc.check=3:glibc.malloc.hugetlbx=2:glibc.malloc.hugetlb=1");
  EXPECT_EQ(other->saved, "=glibc.malloc.check=3:glibc.malloc.hugetlbx=2");
}

// A user's own choice of huge pages, anywhere in the list, is theirs.
TEST(heap_tuning, a_users_own_hugetlb_setting_is_left_alone) {
  EXPECT_FALSE(heap_tuning_start("glibc.malloc.hugetlb=0"));
  EXPECT_FALSE(heap_tuning_start("glibc.malloc.check=3:glibc.malloc.hugetlb=2"));
  EXPECT_FALSE(heap_tuning_start("glibc.malloc.hugetlb=1:glibc.malloc.check=3"));
}

// The commands that read the durable state; the quick ones start once.
TEST(heap_tuning, the_commands_that_read_the_state_start_again) {
  for (const char* command : {"run", "status", "serve"})
    EXPECT_TRUE(heap_tuning_wanted(command)) << command;
  for (const char* command : {"validate-plan", "policy", "doctor", "replay", "node", ""})
    EXPECT_FALSE(heap_tuning_wanted(command)) << command;
}

TEST(heap_tuning, a_state_of_thousands_of_tasks_is_read_in_large_heap_steps) {
  EXPECT_FALSE(large_heap_steps_wanted(0));
  EXPECT_FALSE(large_heap_steps_wanted(large_state_bytes - 1));
  EXPECT_TRUE(large_heap_steps_wanted(large_state_bytes));
  EXPECT_TRUE(large_heap_steps_wanted(std::uintmax_t{26} << 20)); // 10,000 tasks
}

// glibc's heap as the probe (built without a sanitizer) sees it: small
// steps as glibc starts and for a small state, large ones for a large
// state, small ones again after the first admission.
TEST(heap_tuning, the_heap_grows_in_large_steps_until_the_first_admission) {
  const std::string probe = std::string(AD_BINARY_DIR) + "/heap-steps-probe";
  std::FILE* out = ::popen(probe.c_str(), "r");
  ASSERT_NE(out, nullptr) << probe;
  char line[256] = {};
  bool read = std::fgets(line, sizeof line, out) != nullptr;
  int rc = ::pclose(out);
  ASSERT_TRUE(read) << probe << " printed nothing";
  ASSERT_EQ(rc, 0) << line;
  long small = -1, small_state = -1, large = -1, after = -1;
  ASSERT_EQ(std::sscanf(line, "default %ld small-state %ld large %ld after-admission %ld", &small,
                        &small_state, &large, &after),
            4)
    << line;
  EXPECT_LT(small, 1L << 20) << line;
  EXPECT_LT(small_state, 1L << 20) << line;
  EXPECT_GE(large, static_cast<long>(heap_large_step)) << line;
  EXPECT_LT(after, 1L << 20) << line;
}

// The user's own number of heaps, by either name, is theirs.
TEST(heap_tuning, a_users_own_number_of_heaps_is_left_alone) {
  EXPECT_FALSE(heap_arenas_chosen(nullptr, nullptr));
  EXPECT_FALSE(heap_arenas_chosen(nullptr, ""));
  EXPECT_FALSE(heap_arenas_chosen(nullptr, "glibc.malloc.hugetlb=1:glibc.malloc.arena_test=2"));
  EXPECT_TRUE(heap_arenas_chosen("4", nullptr));
  EXPECT_TRUE(heap_arenas_chosen("", nullptr));
  EXPECT_TRUE(heap_arenas_chosen(nullptr, "glibc.malloc.arena_max=8"));
  EXPECT_TRUE(heap_arenas_chosen(nullptr, "glibc.malloc.check=3:glibc.malloc.arena_max=1"));
}

// glibc's heaps as the probe (built without a sanitizer) sees them: eight
// threads allocating at once get a heap each from glibc; after
// limit_heap_arenas() they share heap_arenas (fewer than eight); a
// MALLOC_ARENA_MAX the user set wins over it.
struct probe_heaps {
  int limited = -1;
  int heaps = -1;
};

// The one line a probe printed, run as `command`; "" when it failed or
// printed nothing.
std::string probe_line(const std::string& command) {
  std::FILE* out = ::popen(command.c_str(), "r");
  if (out == nullptr)
    return "";
  char line[256] = {};
  bool read = std::fgets(line, sizeof line, out) != nullptr;
  return ::pclose(out) == 0 && read ? std::string(line) : std::string();
}

probe_heaps run_heap_arenas_probe(const std::string& env, const char* arg) {
  const auto line =
    probe_line(env + " " + std::string(AD_BINARY_DIR) + "/heap-arenas-probe " + arg);
  probe_heaps got;
  if (std::sscanf(line.c_str(), "limited %d heaps %d", &got.limited, &got.heaps) != 2)
    return {};
  return got;
}

TEST(heap_tuning, the_threads_of_a_long_run_share_a_few_heaps) {
  auto own = run_heap_arenas_probe("env -u MALLOC_ARENA_MAX GLIBC_TUNABLES=", "none");
  EXPECT_EQ(own.limited, 0);
  EXPECT_GT(own.heaps, heap_arenas);

  auto limited = run_heap_arenas_probe("env -u MALLOC_ARENA_MAX GLIBC_TUNABLES=", "limit");
  EXPECT_EQ(limited.limited, 1);
  EXPECT_GE(limited.heaps, 1);
  EXPECT_LE(limited.heaps, heap_arenas);

  auto users = run_heap_arenas_probe("env MALLOC_ARENA_MAX=6 GLIBC_TUNABLES=", "limit");
  EXPECT_EQ(users.limited, 0);
  EXPECT_GT(users.heaps, heap_arenas);
  EXPECT_LE(users.heaps, 6);
}

// Which heaps the own-heap probe's threads allocated from: -1 when the probe
// failed or printed something else.
struct probe_own_heap {
  int main_from_main = -1;
  int own_from_main = -1;
};

probe_own_heap run_own_heap_probe(const char* arg) {
  const auto line = probe_line("env -u MALLOC_ARENA_MAX GLIBC_TUNABLES= " +
                               std::string(AD_BINARY_DIR) + "/own-heap-probe " + arg);
  probe_own_heap got;
  if (std::sscanf(line.c_str(), "main_from_main %d own_from_main %d", &got.main_from_main,
                  &got.own_from_main) != 2)
    return {};
  return got;
}

// A restart's early scan and the state's reading on the main thread each
// allocate from a heap of their own, under the limit of heap_arenas, though
// other threads allocate as the scan starts. With a single heap allowed, the
// probe sees the thread in the main heap: it can tell the two apart.
TEST(heap_tuning, a_thread_started_on_its_own_heap_does_not_share_the_main_one) {
  for (int round = 0; round < 5; ++round) {
    auto limited = run_own_heap_probe("limit");
    EXPECT_EQ(limited.main_from_main, 1);
    EXPECT_EQ(limited.own_from_main, 0) << "round " << round;
  }
  auto one = run_own_heap_probe("one");
  EXPECT_EQ(one.main_from_main, 1);
  EXPECT_EQ(one.own_from_main, 1);
}

TEST(heap_tuning, the_second_start_puts_back_what_the_first_had) {
  EXPECT_FALSE(heap_tuning_restore(nullptr).second_start);

  auto unset = heap_tuning_restore("-");
  EXPECT_TRUE(unset.second_start);
  EXPECT_FALSE(unset.tunables);

  auto empty = heap_tuning_restore("=");
  EXPECT_TRUE(empty.second_start);
  EXPECT_EQ(empty.tunables, "");

  auto start = heap_tuning_start("glibc.malloc.check=3");
  ASSERT_TRUE(start);
  auto back = heap_tuning_restore(start->saved.c_str());
  EXPECT_TRUE(back.second_start);
  EXPECT_EQ(back.tunables, "glibc.malloc.check=3");
}

// What is kept outlives every other holder: it is never freed.
TEST(heap_tuning, a_value_kept_until_exit_outlives_its_last_holder) {
  struct counted {
    explicit counted(int* d) : destroyed(d) {}
    ~counted() { ++*destroyed; }
    int* destroyed;
  };
  static int destroyed = 0;
  auto value = std::make_shared<counted>(&destroyed);
  std::weak_ptr<counted> watch = value;
  keep_until_exit(value);
  value.reset();
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(destroyed, 0);

  // Without it, the last holder frees the value.
  destroyed = 0;
  auto other = std::make_shared<counted>(&destroyed);
  std::weak_ptr<counted> other_watch = other;
  other.reset();
  EXPECT_TRUE(other_watch.expired());
  EXPECT_EQ(destroyed, 1);
}

} // namespace
} // namespace ad::runtime
