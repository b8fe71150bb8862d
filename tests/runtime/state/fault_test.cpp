// SQLite-style fault loop: fail the k-th write or fsync (once, and
// persistently) for every k of a scripted workload, and cut the journal at
// every byte offset of its last record; after each, reload with a healthy
// file layer and check that every acknowledged batch is present, every other
// batch is fully present or fully absent, and the state is exactly a replay
// of the batches present.
#include <gtest/gtest.h>

#include "runtime/core/files.hpp"
#include "runtime/state/durable_store.hpp"
#include "runtime/state/journal.hpp"
#include "tests/runtime/state/fault_file_layer.hpp"
#include "tests/runtime/state/state_fixtures.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

constexpr int batch_count = 14;

store_options small_journal() {
  store_options o;
  o.compact_after_bytes = 3000;  // the workload compacts a few times
  return o;
}

// Commits batches 0..batch_count-1: odd i as a group of two entries with
// i+1 (so group commits are exercised), else alone. After a failure the
// store is reopened with the same layer, as a restarted dispatcher would.
std::vector<bool> run_workload(const fs::path& root, const workspace_identity& id,
                               std::shared_ptr<state_file_layer> layer) {
  std::vector<bool> acked(batch_count, false);
  std::unique_ptr<durable_store> store;
  int reopen_failures = 0;
  for (int i = 0; i < batch_count;) {
    if (!store) {
      auto s = durable_store::open(root, id, layer, small_journal());
      if (!s) {
        if (++reopen_failures > 3)
          break;  // persistent fault: the dispatcher would stop here
        continue;
      }
      store = std::move(*s);
    }
    std::vector<std::vector<state_change>> entries{test::scripted_batch(i)};
    if (i % 2 == 1 && i + 1 < batch_count)
      entries.push_back(test::scripted_batch(i + 1));
    auto r = store->commit(entries);
    if (r) {
      for (size_t e = 0; e < entries.size(); ++e)
        acked[i + e] = true;
    } else {
      store.reset();
    }
    i += static_cast<int>(entries.size());
  }
  return acked;
}

// Reloads with a healthy layer and checks the all-or-nothing rule.
void verify(const fs::path& root, const workspace_identity& id, const std::vector<bool>& acked,
            const std::string& label) {
  auto s = durable_store::open(root, id, posix_file_layer(), small_journal());
  ASSERT_TRUE(s) << label << ": reload failed: " << s.error().to_string();
  const auto& state = (*s)->state();
  state_model expected;
  for (int i = 0; i < batch_count; ++i) {
    int m = test::markers_present(state, i);
    ASSERT_TRUE(m == 0 || m == 3) << label << ": batch " << i << " half present";
    if (acked[i]) {
      ASSERT_EQ(m, 3) << label << ": acknowledged batch " << i << " lost";
    }
    if (m == 3)
      for (const auto& c : test::scripted_batch(i))
        (void) apply_change(expected, c);
  }
  ASSERT_EQ(state, expected) << label << ": state is not a replay of the batches present";
}

struct fault_case {
  test::fault_kind kind;
  test::fault_mode mode;
};

class state_fault_loop : public ::testing::TestWithParam<fault_case> {};

TEST_P(state_fault_loop, kth_operation_fails) {
  fs::path ws_root;
  uint64_t total = 0;
  {
    ad::test::temp_dir dir;
    fs::create_directories(dir.path() / "ws");
    auto id = *identify_workspace(dir.path() / "ws");
    auto counter = std::make_shared<test::fault_file_layer>();
    auto acked = run_workload(dir.path() / "state", id, counter);
    ASSERT_EQ(std::count(acked.begin(), acked.end(), true), batch_count);
    total = GetParam().kind == test::fault_kind::write ? counter->writes() : counter->syncs();
    ASSERT_GT(total, 10u);
  }
  int fired = 0;
  for (uint64_t k = 1; k <= total + 1; ++k) {
    ad::test::temp_dir dir;
    fs::create_directories(dir.path() / "ws");
    auto id = *identify_workspace(dir.path() / "ws");
    auto layer = std::make_shared<test::fault_file_layer>(GetParam().kind, k, GetParam().mode);
    auto acked = run_workload(dir.path() / "state", id, layer);
    fired += layer->fired();
    if (GetParam().mode == test::fault_mode::once && k <= total) {
      // A single fault costs at most the entries of one group commit.
      EXPECT_GE(std::count(acked.begin(), acked.end(), true), batch_count - 2) << "k=" << k;
    }
    verify(dir.path() / "state", id, acked, "k=" + std::to_string(k));
    if (HasFatalFailure())
      return;
  }
  EXPECT_EQ(fired, static_cast<int>(total));
}

INSTANTIATE_TEST_SUITE_P(
  all, state_fault_loop,
  ::testing::Values(fault_case{test::fault_kind::write, test::fault_mode::once},
                    fault_case{test::fault_kind::write, test::fault_mode::persistent},
                    fault_case{test::fault_kind::sync, test::fault_mode::once},
                    fault_case{test::fault_kind::sync, test::fault_mode::persistent}),
  [](const auto& info) {
    return std::string(info.param.kind == test::fault_kind::write ? "write" : "sync") + "_"
           + (info.param.mode == test::fault_mode::once ? "once" : "persistent");
  });

TEST(state_fault_cut, every_cut_of_the_last_record_reloads_all_or_nothing) {
  ad::test::temp_dir dir;
  fs::create_directories(dir.path() / "ws");
  auto id = *identify_workspace(dir.path() / "ws");
  fs::path root = dir.path() / "state";
  store_options big;  // no compaction: the journal holds every record
  {
    auto s = durable_store::open(root, id, posix_file_layer(), big);
    ASSERT_TRUE(s);
    for (int i = 0; i < 6; ++i)
      ASSERT_TRUE((*s)->commit({test::scripted_batch(i)}));
  }
  // A crash while the sixth record was written: its commit never returned,
  // so the mark still says five.
  auto mark_after_five = encode_mark(5);
  auto journal = *read_file(root / journal_file_name);
  auto scan = scan_journal(journal, "j");
  ASSERT_TRUE(scan);
  uint64_t last = scan->records.back().offset;
  int cuts = 0;
  for (uint64_t cut = last; cut <= journal.size(); ++cut) {
    ASSERT_TRUE(write_file_atomic(root / journal_file_name, std::string_view(journal).substr(0, cut)));
    ASSERT_TRUE(write_file_atomic(root / mark_file_name, mark_after_five));
    auto s = durable_store::open(root, id, posix_file_layer(), big);
    ASSERT_TRUE(s) << "cut " << cut << ": " << s.error().to_string();
    state_model expected;
    int present = cut == journal.size() ? 6 : 5;
    for (int i = 0; i < present; ++i)
      for (const auto& c : test::scripted_batch(i))
        (void) apply_change(expected, c);
    ASSERT_EQ((*s)->state(), expected) << "cut " << cut;
    uint64_t dropped = cut == journal.size() ? 0 : cut - last;
    EXPECT_EQ((*s)->report().dropped_tail_bytes, dropped) << "cut " << cut;
    if (dropped > 0) {
      ASSERT_EQ((*s)->report().warnings.size(), 1u);
      EXPECT_NE((*s)->report().warnings[0].find(std::to_string(dropped) + " bytes"), std::string::npos);
    }
    ++cuts;
  }
  EXPECT_EQ(cuts, static_cast<int>(journal.size() - last + 1));
}

} // namespace
} // namespace ad::runtime
