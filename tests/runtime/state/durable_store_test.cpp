#include "runtime/state/durable_store.hpp"

#include <fstream>
#include <limits>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runtime/core/files.hpp"
#include "runtime/state/journal.hpp"
#include "tests/runtime/state/fault_file_layer.hpp"
#include "tests/runtime/state/state_fixtures.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

class durable_store_test : public ::testing::Test {
protected:
  void SetUp() override {
    fs::create_directories(dir_.path() / "ws");
    id_ = *identify_workspace(dir_.path() / "ws");
    root_ = dir_.path() / "state";
  }
  std::unique_ptr<durable_store> open(store_options o = {}) {
    auto s = durable_store::open(root_, id_, posix_file_layer(), o);
    EXPECT_TRUE(s) << s.error().to_string();
    return s ? std::move(*s) : nullptr;
  }
  static state_model replay(int from, int to) {
    state_model s;
    for (int i = from; i < to; ++i)
      for (const auto& c : test::scripted_batch(i))
        (void) apply_change(s, c);
    return s;
  }
  void append_to_journal(std::string_view bytes) {
    std::ofstream out(root_ / journal_file_name, std::ios::binary | std::ios::app);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  ad::test::temp_dir dir_;
  workspace_identity id_;
  fs::path root_;
};

TEST_F(durable_store_test, committed_entries_survive_reopen) {
  {
    auto s = open();
    EXPECT_TRUE(fs::exists(root_ / journal_file_name));
    for (int i = 0; i < 5; ++i) {
      auto r = s->commit({test::scripted_batch(i)});
      ASSERT_TRUE(r);
      EXPECT_EQ(r->at(0).seq, static_cast<uint64_t>(i + 1));
      for (const auto& st : r->at(0).outcomes)
        EXPECT_TRUE(st) << st.to_string();
    }
    EXPECT_EQ(s->state(), replay(0, 5));
  }
  auto s = open();
  EXPECT_EQ(s->state(), replay(0, 5));
  EXPECT_EQ(s->last_seq(), 5u);
  EXPECT_EQ(s->report().replayed_entries, 5u);
  EXPECT_TRUE(s->report().warnings.empty());
}

TEST_F(durable_store_test, the_stored_bytes_are_the_snapshot_s_and_the_journal_s) {
  EXPECT_EQ(stored_state_bytes(root_), 0u) << "no state root yet";
  {
    auto s = open();
    for (int i = 0; i < 3; ++i)
      ASSERT_TRUE(s->commit({test::scripted_batch(i)}));
  }
  auto journal = fs::file_size(root_ / journal_file_name);
  ASSERT_GT(journal, 0u);
  EXPECT_EQ(stored_state_bytes(root_), journal) << "a journal without a snapshot";
  std::ofstream(root_ / snapshot_file_name, std::ios::binary) << std::string(1000, ' ');
  EXPECT_EQ(stored_state_bytes(root_), journal + 1000);
}

TEST_F(durable_store_test, group_commit_is_one_append_one_sync_and_one_mark_rewrite) {
  auto layer = std::make_shared<test::fault_file_layer>();
  auto s = durable_store::open(root_, id_, layer);
  ASSERT_TRUE(s);
  uint64_t writes = layer->writes(), syncs = layer->syncs();
  std::vector<std::vector<state_change>> entries;
  for (int i = 0; i < 8; ++i)
    entries.push_back(test::scripted_batch(i));
  auto r = (*s)->commit(entries);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), 8u);
  EXPECT_EQ(layer->writes() - writes, 2u);  // the journal append and the mark's pwrite
  EXPECT_EQ(layer->syncs() - syncs, 1u);    // the journal's; the mark is not synced per commit
  EXPECT_EQ((*s)->stats().commits, 1u);
  EXPECT_EQ((*s)->stats().changes, replay(0, 0).tasks.size() + [&] {
              size_t n = 0;
              for (auto& e : entries) n += e.size();
              return n;
            }());
}

TEST_F(durable_store_test, rejected_changes_are_reported_and_replayed_the_same) {
  {
    auto s = open();
    auto r = s->commit({{set_counter{"ghost", "x", 1}, begin_work_unit{"a", "a::plan-1::tag-t"}}});
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->at(0).outcomes[0].is_not_found());
    EXPECT_TRUE(r->at(0).outcomes[1]);
  }
  auto s = open();
  EXPECT_EQ(s->state().tasks.size(), 1u);
}

TEST_F(durable_store_test, compaction_folds_the_journal_into_a_snapshot) {
  store_options small;
  small.compact_after_bytes = 4000;
  {
    auto s = open(small);
    for (int i = 0; i < 60; ++i)
      ASSERT_TRUE(s->commit({test::scripted_batch(i)}));
    EXPECT_GT(s->stats().compactions, 0u);
    EXPECT_TRUE(fs::exists(root_ / snapshot_file_name));
    EXPECT_LT(fs::file_size(root_ / journal_file_name), 4000u + 2000u);
  }
  auto s = open(small);
  EXPECT_EQ(s->state(), replay(0, 60));
  EXPECT_EQ(s->last_seq(), 60u);
  EXPECT_GT(s->report().snapshot_seq, 0u);
}

TEST_F(durable_store_test, torn_tail_is_dropped_with_a_warning_and_cut_away) {
  { auto s = open(); ASSERT_TRUE(s->commit({test::scripted_batch(0)})); }
  auto size_before = fs::file_size(root_ / journal_file_name);
  // The first 23 bytes of a real record: a write cut short by a crash.
  append_to_journal(encode_record(journal_record_type::entry, std::string(100, 'x')).substr(0, 23));
  {
    auto s = open();
    ASSERT_TRUE(s);
    ASSERT_EQ(s->report().warnings.size(), 1u);
    EXPECT_NE(s->report().warnings[0].find("23 bytes"), std::string::npos) << s->report().warnings[0];
    EXPECT_EQ(s->report().dropped_tail_bytes, 23u);
    EXPECT_EQ(fs::file_size(root_ / journal_file_name), size_before);
    ASSERT_TRUE(s->commit({test::scripted_batch(1)}));
  }
  auto s = open();
  EXPECT_TRUE(s->report().warnings.empty());
  EXPECT_EQ(s->state(), replay(0, 2));
}

TEST_F(durable_store_test, damage_in_the_middle_stops_with_file_and_offset) {
  {
    auto s = open();
    for (int i = 0; i < 3; ++i)
      ASSERT_TRUE(s->commit({test::scripted_batch(i)}));
  }
  auto text = *read_file(root_ / journal_file_name);
  auto scan = scan_journal(text, "j");
  auto at = scan->records[2].offset;
  text[at + 20] ^= 0x40;
  ASSERT_TRUE(write_file_atomic(root_ / journal_file_name, text));
  auto s = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is_corruption());
  const auto& msg = s.error().message();
  EXPECT_NE(msg.find((root_ / journal_file_name).string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("offset " + std::to_string(at)), std::string::npos) << msg;
  EXPECT_NE(msg.find("move it aside"), std::string::npos) << msg;
}

TEST_F(durable_store_test, bad_snapshot_json_is_a_clear_error) {
  { auto s = open(); ASSERT_TRUE(s->compact()); }
  ASSERT_TRUE(write_file_atomic(root_ / snapshot_file_name, "{\"format\":1,"));
  auto s = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is_corruption());
  EXPECT_NE(s.error().message().find(snapshot_file_name), std::string::npos);
  EXPECT_NE(s.error().message().find("byte"), std::string::npos);
}

TEST_F(durable_store_test, wrongly_typed_snapshot_field_is_corruption_not_an_exception) {
  { auto s = open(); ASSERT_TRUE(s->compact()); }
  auto text = *read_file(root_ / snapshot_file_name);
  text.replace(text.find("\"format\":1"), 10, "\"format\":\"1\"");
  ASSERT_TRUE(write_file_atomic(root_ / snapshot_file_name, text));
  auto s = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is_corruption()) << s.error().to_string();
}

TEST_F(durable_store_test, a_snapshot_state_that_is_not_an_object_is_corruption) {
  { auto s = open(); ASSERT_TRUE(s->commit({test::scripted_batch(0)})); ASSERT_TRUE(s->compact()); }
  auto text = *read_file(root_ / snapshot_file_name);
  auto at = text.find("\"state\":") + 8;
  auto end = text.find(",\"workspace\":");
  for (const std::string bad : {"null", "[]", "5", "\"x\""}) {
    auto damaged = text.substr(0, at) + bad + text.substr(end);
    ASSERT_TRUE(write_file_atomic(root_ / snapshot_file_name, damaged));
    auto s = durable_store::open(root_, id_, posix_file_layer());
    ASSERT_FALSE(s) << bad << " loaded as a state";
    EXPECT_TRUE(s.error().is_corruption()) << s.error().to_string();
    EXPECT_NE(s.error().message().find(", not an object"), std::string::npos)
      << s.error().message();
  }
}

// A seq near 2^64 wrapped at the next commit, which a reload then skipped
// as already folded into the snapshot (found by the snapshot fuzz target).
TEST_F(durable_store_test, a_snapshot_seq_beyond_any_count_of_entries_is_corruption) {
  {
    auto s = open();
    ASSERT_TRUE(s->commit({test::scripted_batch(0)}));
    ASSERT_TRUE(s->compact());
  }
  auto snapshot = nlohmann::json::parse(*read_file(root_ / snapshot_file_name));
  snapshot["seq"] = std::numeric_limits<uint64_t>::max();
  ASSERT_TRUE(write_file_atomic(root_ / snapshot_file_name, snapshot.dump()));
  auto s = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is_corruption());
  EXPECT_NE(s.error().message().find("is beyond any count of entries"), std::string::npos)
    << s.error().message();
}

// Found by the journal fuzz target: an entry's change holding 1e300 where an
// integer belongs reached nlohmann's cast to int64_t, undefined behaviour.
TEST_F(durable_store_test, a_journal_entry_with_a_fractional_number_is_corruption_at_its_offset) {
  { auto s = open(); ASSERT_TRUE(s->commit({test::scripted_batch(0)})); }
  auto text = *read_file(root_ / journal_file_name);
  auto scan = scan_journal(text, "j");
  ASSERT_TRUE(scan);
  ASSERT_EQ(scan->records.size(), 2u);
  const auto offset = scan->records[1].offset;
  nlohmann::json entry = nlohmann::json::parse(scan->records[1].payload);
  entry["changes"] = nlohmann::json::parse(
    R"([{"op":"set_counter","task":"a","name":"n","value":1e300}])");
  ASSERT_TRUE(write_file_atomic(root_ / journal_file_name,
                                text.substr(0, offset)
                                  + encode_record(journal_record_type::entry, entry.dump())));
  auto s = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is_corruption());
  EXPECT_NE(s.error().message().find(journal_file_name + std::string(" at byte offset ")
                                     + std::to_string(offset)
                                     + ": malformed state change: changes[0].value: holds "
                                       "1e+300 where an integer belongs"),
            std::string::npos)
    << s.error().message();
}

// What is wrong is reported as a reading of one file after the other finds
// it: the snapshot's damage before the journal's, and an entry the snapshot
// already holds is never looked into.
TEST_F(durable_store_test, a_damaged_snapshot_is_reported_before_a_damaged_journal) {
  { auto s = open(); ASSERT_TRUE(s->commit({test::scripted_batch(0)})); ASSERT_TRUE(s->compact()); }
  ASSERT_TRUE(write_file_atomic(root_ / snapshot_file_name, "{\"format\":1,"));
  append_to_journal(encode_record(journal_record_type::entry, "not json"));
  auto s = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is_corruption());
  EXPECT_NE(s.error().message().find(snapshot_file_name), std::string::npos) << s.error().message();
  EXPECT_EQ(s.error().message().find(journal_file_name), std::string::npos) << s.error().message();
}

TEST_F(durable_store_test, a_bad_change_in_an_entry_the_snapshot_holds_is_skipped_as_before) {
  std::string journal_before;
  {
    auto s = open();
    ASSERT_TRUE(s->commit({test::scripted_batch(0)}));
    ASSERT_TRUE(s->commit({test::scripted_batch(1)}));
    journal_before = *read_file(root_ / journal_file_name);
    ASSERT_TRUE(s->compact());
  }
  // The journal as a crash between the snapshot's rename and the journal's
  // restart leaves it, with entry 1's change damaged: the snapshot holds
  // entries 1 and 2, so the replay skips both.
  auto scan = scan_journal(journal_before, "j");
  ASSERT_TRUE(scan);
  ASSERT_EQ(scan->records.size(), 3u);
  auto entry = nlohmann::json::parse(scan->records[1].payload);
  entry["changes"] = nlohmann::json::parse(R"([{"op":"no_such_change"}])");
  std::string damaged = journal_before.substr(0, scan->records[1].offset) +
                        encode_record(journal_record_type::entry, entry.dump()) +
                        journal_before.substr(scan->records[2].offset);
  ASSERT_TRUE(write_file_atomic(root_ / journal_file_name, damaged));
  auto s = open();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->state(), replay(0, 2));
  EXPECT_EQ(s->last_seq(), 2u);
  EXPECT_EQ(s->report().replayed_entries, 0u);

  // The same damage in an entry the snapshot does not hold stops the load.
  { ASSERT_TRUE(s->commit({test::scripted_batch(2)})); }
  s.reset();
  auto text = *read_file(root_ / journal_file_name);
  auto later = scan_journal(text, "j");
  ASSERT_TRUE(later);
  const auto& last = later->records.back();
  auto third = nlohmann::json::parse(last.payload);
  third["changes"] = nlohmann::json::parse(R"([{"op":"no_such_change"}])");
  ASSERT_TRUE(write_file_atomic(root_ / journal_file_name,
                                text.substr(0, last.offset) +
                                  encode_record(journal_record_type::entry, third.dump())));
  auto refused = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(refused);
  EXPECT_TRUE(refused.error().is_corruption());
  EXPECT_NE(refused.error().message().find("at byte offset " + std::to_string(last.offset)),
            std::string::npos)
    << refused.error().message();
}

// The snapshot's "format" was read as an int with a default: 1e300 there
// was the same undefined cast.
TEST_F(durable_store_test, a_snapshot_format_or_state_with_a_fractional_number_is_corruption) {
  { auto s = open(); ASSERT_TRUE(s->commit({test::scripted_batch(0)})); ASSERT_TRUE(s->compact()); }
  auto good = nlohmann::json::parse(*read_file(root_ / snapshot_file_name));
  auto format = good;
  format["format"] = 1e300;
  ASSERT_TRUE(write_file_atomic(root_ / snapshot_file_name, format.dump()));
  auto s = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is_corruption());
  EXPECT_NE(s.error().message().find("not a state snapshot of format 1"), std::string::npos)
    << s.error().message();

  auto counter = good;
  counter["state"]["attempt_counters"] = nlohmann::json::parse(
    R"([{"task":"a","plan":1,"role":"worker","count":-1e300}])");
  ASSERT_TRUE(write_file_atomic(root_ / snapshot_file_name, counter.dump()));
  s = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is_corruption());
  EXPECT_NE(s.error().message().find("holds -1e+300 where an integer belongs"), std::string::npos)
    << s.error().message();
}

// The snapshot's tasks are read one at a time (never one tree of them all):
// what loads is what was written, and a damaged task is refused as before.
TEST_F(durable_store_test, a_snapshots_tasks_load_one_by_one_and_a_damaged_one_is_refused) {
  {
    auto s = open();
    for (int i = 0; i < 8; ++i)
      ASSERT_TRUE(s->commit({test::scripted_batch(i)}));
    ASSERT_TRUE(s->compact());
  }
  EXPECT_EQ(open()->state(), replay(0, 8));
  auto good = nlohmann::json::parse(*read_file(root_ / snapshot_file_name));
  ASSERT_EQ(good["state"]["tasks"].size(), 4u);
  auto refused = [&](const nlohmann::json& snapshot, const std::string& words) {
    ASSERT_TRUE(write_file_atomic(root_ / snapshot_file_name, snapshot.dump()));
    auto s = durable_store::open(root_, id_, posix_file_layer());
    ASSERT_FALSE(s) << words;
    EXPECT_TRUE(s.error().is_corruption()) << s.error().to_string();
    EXPECT_NE(s.error().message().find(snapshot_file_name), std::string::npos)
      << s.error().message();
    EXPECT_NE(s.error().message().find(words), std::string::npos) << s.error().message();
  };
  auto typed = good;
  typed["state"]["tasks"]["t1"]["worker_done"] = "yes";
  refused(typed, "malformed state: task \"t1\": worker_done: expected a boolean, found a string");
  auto fraction = good;
  fraction["state"]["tasks"]["t2"]["counters"]["m2_0"] = 1.5;
  refused(fraction, "task \"t2\": counters.m2_0: holds 1.5 where an integer belongs");
  for (const auto& odd : {nlohmann::json(5), nlohmann::json::array(), nlohmann::json("t")}) {
    auto not_object = good;
    not_object["state"]["tasks"]["t3"] = odd;
    refused(not_object, "malformed state");
  }
  // Tasks in an array, not an object: nothing of it is taken for a task.
  auto listed = good;
  listed["state"]["tasks"] = nlohmann::json::array({good["state"]["tasks"]["t0"]});
  refused(listed, "malformed state");
  // Too deep inside a task: refused before anything walks it.
  auto text = good.dump();
  auto at = text.find("\"counters\":{", text.find("\"t0\":"));
  ASSERT_NE(at, std::string::npos);
  std::string deep = "\"deep\":" + std::string(300, '[') + std::string(300, ']') + ",";
  ASSERT_TRUE(write_file_atomic(root_ / snapshot_file_name,
                                text.substr(0, at) + deep + text.substr(at)));
  auto s = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is_corruption());
  EXPECT_NE(s.error().message().find("nested deeper than 256 levels"), std::string::npos)
    << s.error().message();
  // Keys in another order (a snapshot written by another tool) load the same.
  std::string reordered = "{\"state\":" + good["state"].dump() + ",\"seq\":"
                          + good["seq"].dump() + ",\"workspace\":" + good["workspace"].dump()
                          + ",\"format\":1}";
  ASSERT_TRUE(write_file_atomic(root_ / snapshot_file_name, reordered));
  EXPECT_EQ(open()->state(), replay(0, 8));
}

// simdjson reads the snapshot a task at a time (runtime/core/json_events.hpp)
// and may find damage after it handed tasks over: the snapshot is then read
// again by nlohmann, and the message names the byte as nlohmann does.
TEST_F(durable_store_test, damage_after_the_first_tasks_is_reported_at_its_byte) {
  {
    auto s = open();
    for (int i = 0; i < 8; ++i)
      ASSERT_TRUE(s->commit({test::scripted_batch(i)}));
    ASSERT_TRUE(s->compact());
  }
  const auto good = *read_file(root_ / snapshot_file_name);
  ASSERT_NE(good.rfind(",\"t3\":{"), std::string::npos);
  auto reported_at_its_byte = [&](const std::string& text) {
    std::size_t byte = 0;
    try {
      (void) nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      byte = e.byte;
    }
    ASSERT_GT(byte, good.size() / 2) << "the damage lies after the first tasks";
    ASSERT_TRUE(write_file_atomic(root_ / snapshot_file_name, text));
    auto s = durable_store::open(root_, id_, posix_file_layer());
    ASSERT_FALSE(s);
    EXPECT_TRUE(s.error().is_corruption());
    EXPECT_NE(s.error().message().find(snapshot_file_name + std::string(": invalid JSON at byte ")
                                       + std::to_string(byte) + ":"),
              std::string::npos)
      << s.error().message();
  };
  reported_at_its_byte(good + " trailing");
  reported_at_its_byte(good.substr(0, good.size() - 1));
  auto no_comma = good;
  no_comma.erase(no_comma.rfind(",\"t3\":{"), 1);
  reported_at_its_byte(no_comma);
  auto bad_byte = good;
  bad_byte.insert(bad_byte.rfind("\"t3\":{") + 2, "\xff");
  reported_at_its_byte(bad_byte);
}

// "-0" in a task, which simdjson would read without its sign, is read by
// nlohmann for that task: the state is the one the text holds.
TEST_F(durable_store_test, a_task_holding_minus_zero_loads_as_its_text_says) {
  {
    auto s = open();
    for (int i = 0; i < 8; ++i)
      ASSERT_TRUE(s->commit({test::scripted_batch(i)}));
    ASSERT_TRUE(s->compact());
  }
  auto snapshot = nlohmann::json::parse(*read_file(root_ / snapshot_file_name));
  snapshot["state"]["tasks"]["t2"]["counters"]["zero"] = 0;
  snapshot["state"]["tasks"]["t2"]["counters"]["minus"] = -7;
  auto text = snapshot.dump();
  auto at = text.find("\"zero\":0");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 8, "\"zero\":-0");
  ASSERT_TRUE(write_file_atomic(root_ / snapshot_file_name, text));
  auto expected = replay(0, 8);
  expected.tasks["t2"].counters["zero"] = 0;
  expected.tasks["t2"].counters["minus"] = -7;
  EXPECT_EQ(open()->state(), expected);
}

TEST_F(durable_store_test, a_journal_header_of_another_format_is_corruption) {
  { auto s = open(); ASSERT_TRUE(s->commit({test::scripted_batch(0)})); }
  auto text = *read_file(root_ / journal_file_name);
  auto scan = scan_journal(text, "j");
  ASSERT_TRUE(scan);
  auto header = nlohmann::json::parse(scan->records[0].payload);
  header["format"] = 99;
  auto rest = text.substr(scan->records[1].offset);
  ASSERT_TRUE(write_file_atomic(root_ / journal_file_name,
                                encode_record(journal_record_type::header, header.dump()) + rest));
  auto s = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is_corruption());
  EXPECT_NE(s.error().message().find("is not of format 1"), std::string::npos)
    << s.error().message();
}

TEST_F(durable_store_test, a_lost_journal_is_corruption_where_a_state_existed) {
  {
    auto s = open();
    ASSERT_TRUE(s->commit({test::scripted_batch(0)}));
    ASSERT_TRUE(s->compact());
    ASSERT_TRUE(s->commit({test::scripted_batch(1)}));
  }
  // Beside a snapshot.
  fs::remove(root_ / journal_file_name);
  auto beside_snapshot = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(beside_snapshot);
  EXPECT_TRUE(beside_snapshot.error().is_corruption());
  EXPECT_NE(beside_snapshot.error().message().find("is missing but the snapshot"),
            std::string::npos)
    << beside_snapshot.error().message();
  // Beside the attempts of earlier runs.
  fs::remove(root_ / snapshot_file_name);
  dir_.write("state/runs/20261201T000000Z__g__01_a__p1__worker__a01/locator.json", "{}");
  auto beside_runs = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(beside_runs);
  EXPECT_NE(beside_runs.error().message().find("holds attempts of earlier runs"),
            std::string::npos)
    << beside_runs.error().message();
  // A dangling symlink in its place.
  fs::remove_all(root_ / "runs");
  fs::create_symlink(root_ / "gone.log", root_ / journal_file_name);
  auto dangling = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(dangling);
  EXPECT_NE(dangling.error().message().find("is a symlink to a file that does not exist"),
            std::string::npos)
    << dangling.error().message();
  // The journal mark records that entries were durable.
  fs::remove(root_ / journal_file_name);
  auto beside_mark = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(beside_mark);
  EXPECT_NE(beside_mark.error().message().find("records that entry 2 was durable"),
            std::string::npos)
    << beside_mark.error().message();
  // Nothing left that shows a state existed: a new one starts.
  fs::remove(root_ / mark_file_name);
  auto fresh = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_TRUE(fresh) << fresh.error().to_string();
  EXPECT_EQ((*fresh)->last_seq(), 0u);
}

TEST_F(durable_store_test, another_workspace_state_is_refused_naming_both) {
  { auto s = open(); ASSERT_TRUE(s->commit({test::scripted_batch(0)})); }
  workspace_identity other{"/elsewhere", "0123456789abcdef"};
  auto s = durable_store::open(root_, other, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is_invalid_argument());
  EXPECT_NE(s.error().message().find(id_.path), std::string::npos);
  EXPECT_NE(s.error().message().find("/elsewhere"), std::string::npos);
}

TEST_F(durable_store_test, a_failed_sync_makes_the_store_refuse_further_commits) {
  auto layer = std::make_shared<test::fault_file_layer>(test::fault_kind::sync, 3, test::fault_mode::once);
  // The new journal's mark is sync 1 and its replace sync 2.
  auto s = durable_store::open(root_, id_, layer);
  ASSERT_TRUE(s);
  auto r = (*s)->commit({test::scripted_batch(0)});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is_io_error());
  EXPECT_FALSE((*s)->health());
  EXPECT_FALSE((*s)->commit({test::scripted_batch(1)}));  // layer would succeed now
  EXPECT_EQ(layer->syncs(), 3u);
}

// The journal cut at a record boundary: every record that is left is intact,
// so only the mark tells that acknowledged entries are gone.
TEST_F(durable_store_test, a_journal_cut_at_a_record_boundary_is_refused) {
  {
    auto s = open();
    for (int i = 0; i < 4; ++i)
      ASSERT_TRUE(s->commit({test::scripted_batch(i)}));
  }
  auto text = *read_file(root_ / journal_file_name);
  auto scan = scan_journal(text, "j");
  ASSERT_TRUE(scan);
  ASSERT_EQ(scan->records.size(), 5u);
  for (size_t keep : {4u, 1u}) {  // entries 1..3 kept; the header alone
    ASSERT_TRUE(write_file_atomic(root_ / journal_file_name,
                                  std::string_view(text).substr(0, scan->records[keep].offset)));
    auto s = durable_store::open(root_, id_, posix_file_layer());
    ASSERT_FALSE(s) << "kept " << keep << " records";
    EXPECT_TRUE(s.error().is_corruption());
    const auto& msg = s.error().message();
    EXPECT_NE(msg.find("ends at entry " + std::to_string(keep - 1)), std::string::npos) << msg;
    EXPECT_NE(msg.find("records that entry 4 was durable"), std::string::npos) << msg;
    EXPECT_NE(msg.find((root_ / mark_file_name).string()), std::string::npos) << msg;
  }
  // The whole journal back: it loads.
  ASSERT_TRUE(write_file_atomic(root_ / journal_file_name, text));
  auto s = open();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->state(), replay(0, 4));
}

TEST_F(durable_store_test, an_older_copy_of_the_journal_is_refused) {
  std::string older;
  {
    auto s = open();
    ASSERT_TRUE(s->commit({test::scripted_batch(0)}));
    older = *read_file(root_ / journal_file_name);
    ASSERT_TRUE(s->commit({test::scripted_batch(1)}));
  }
  ASSERT_TRUE(write_file_atomic(root_ / journal_file_name, older));
  auto s = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("ends at entry 1"), std::string::npos) << s.error().message();
}

TEST_F(durable_store_test, a_missing_mark_is_refused_where_the_journal_keeps_one) {
  { auto s = open(); ASSERT_TRUE(s->commit({test::scripted_batch(0)})); }
  fs::remove(root_ / mark_file_name);
  auto s = durable_store::open(root_, id_, posix_file_layer());
  ASSERT_FALSE(s);
  EXPECT_TRUE(s.error().is_corruption());
  EXPECT_NE(s.error().message().find("is missing, but the journal"), std::string::npos)
    << s.error().message();
}

TEST_F(durable_store_test, a_damaged_mark_is_a_warning_and_is_rewritten) {
  { auto s = open(); ASSERT_TRUE(s->commit({test::scripted_batch(0)})); }
  auto mark = *read_file(root_ / mark_file_name);
  ASSERT_EQ(mark.size(), journal_mark_size);
  EXPECT_EQ(decode_mark(mark), std::optional<uint64_t>(1));
  mark[9] ^= 0x40;
  ASSERT_TRUE(write_file_atomic(root_ / mark_file_name, mark));
  {
    auto s = open();
    ASSERT_TRUE(s);
    ASSERT_EQ(s->report().warnings.size(), 1u);
    EXPECT_NE(s->report().warnings[0].find("journal mark"), std::string::npos);
    ASSERT_TRUE(s->commit({test::scripted_batch(1)}));
  }
  auto s = open();
  EXPECT_TRUE(s->report().warnings.empty());
  EXPECT_EQ(decode_mark(*read_file(root_ / mark_file_name)), std::optional<uint64_t>(2));
}

// A journal started by an earlier version has no "mark" in its header and no
// mark file: it loads, and the first commit starts keeping the mark.
TEST_F(durable_store_test, a_journal_of_an_earlier_version_loads_without_a_mark) {
  { auto s = open(); ASSERT_TRUE(s->commit({test::scripted_batch(0)})); }
  auto text = *read_file(root_ / journal_file_name);
  auto scan = scan_journal(text, "j");
  ASSERT_TRUE(scan);
  auto header = nlohmann::json::parse(scan->records[0].payload);
  ASSERT_TRUE(header.contains("mark"));
  header.erase("mark");
  ASSERT_TRUE(write_file_atomic(root_ / journal_file_name,
                                encode_record(journal_record_type::header, header.dump())
                                  + text.substr(scan->records[1].offset)));
  fs::remove(root_ / mark_file_name);
  {
    auto s = open();
    ASSERT_TRUE(s);
    EXPECT_EQ(s->last_seq(), 1u);
    ASSERT_TRUE(s->commit({test::scripted_batch(1)}));
  }
  EXPECT_EQ(decode_mark(*read_file(root_ / mark_file_name)), std::optional<uint64_t>(2));
}

} // namespace
} // namespace ad::runtime
