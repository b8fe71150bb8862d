#include "runtime/distributed/node_status.hpp"

#include <gtest/gtest.h>

#include "runtime/report/event_render.hpp"

namespace ad::runtime {
namespace {

constexpr millis wall = 1'800'000'000'000;  // 2027-01-15T08:00:00.000Z
const lease_terms terms{10'000, 10'000};    // renewals every 2.5 s

node_observation connected(int64_t last_heard) {
  return {"gpu-1", true, 4, 1, last_heard, ""};
}

TEST(node_status, a_node_heard_within_two_renewals_holds_its_lease_until_last_heard_plus_lease) {
  auto s = decide_node_status(connected(100'000), terms, 105'000, wall);
  EXPECT_EQ(s.name, "gpu-1");
  EXPECT_EQ(s.slots, 4);
  EXPECT_EQ(s.in_use, 1);
  EXPECT_EQ(s.lease, lease_held);
  // Heard 5 s ago (steady), so the lease ends 5 s from now (wall).
  EXPECT_EQ(s.lease_end, wall + 5'000);
}

TEST(node_status, a_node_silent_past_two_renewals_is_expiring_then_lost_once_the_lease_ran_out) {
  EXPECT_EQ(decide_node_status(connected(100'000), terms, 105'001, wall).lease, lease_expiring);
  EXPECT_EQ(decide_node_status(connected(100'000), terms, 110'000, wall).lease, lease_expiring);
  auto lost = decide_node_status(connected(100'000), terms, 110'001, wall);
  EXPECT_EQ(lost.lease, lease_lost);
  EXPECT_EQ(lost.lease_end, wall - 1) << "an end in the past: when it ran out";
}

TEST(node_status, a_disconnected_node_is_expiring_until_its_lease_ran_out_and_says_why) {
  auto o = connected(100'000);
  o.connected = false;
  o.problem = "connection refused";
  auto s = decide_node_status(o, terms, 101'000, wall);
  EXPECT_EQ(s.lease, lease_expiring) << "the node may still run its agents until then";
  EXPECT_EQ(s.problem, "connection refused");
  EXPECT_EQ(s.lease_end, wall + 9'000) << "the node itself fences at its lease's end";
  EXPECT_EQ(decide_node_status(o, terms, 110'001, wall).lease, lease_lost);
  o.connected = true;
  EXPECT_EQ(decide_node_status(o, terms, 101'000, wall).problem, "") << "a past problem";
}

TEST(node_status, slots_use_and_lease_changes_are_news_and_a_held_lease_every_half_lease) {
  auto shown = decide_node_status(connected(100'000), terms, 100'000, wall);
  auto renewed = decide_node_status(connected(102'500), terms, 102'500, wall + 2'500);
  EXPECT_FALSE(node_status_changed(shown, renewed, terms)) << "one renewal: the end moved 2.5 s";
  auto later = decide_node_status(connected(105'000), terms, 105'000, wall + 5'000);
  EXPECT_TRUE(node_status_changed(shown, later, terms)) << "half a lease";
  auto busier = shown;
  busier.in_use = 2;
  EXPECT_TRUE(node_status_changed(shown, busier, terms));
  auto more = shown;
  more.slots = 8;
  EXPECT_TRUE(node_status_changed(shown, more, terms));
  auto expiring = decide_node_status(connected(100'000), terms, 106'000, wall + 6'000);
  EXPECT_TRUE(node_status_changed(shown, expiring, terms));
  // An expiring or lost lease's end does not move: nothing new until it changes state.
  auto still = decide_node_status(connected(100'000), terms, 107'000, wall + 7'000);
  EXPECT_FALSE(node_status_changed(expiring, still, terms));
}

TEST(node_status, its_event_carries_slots_and_lease_to_json_and_lines) {
  node_status s{"gpu-1", 4, 3, std::string(lease_expiring), wall + 4'000, ""};
  auto e = node_status_event(s, wall);
  EXPECT_EQ(e.kind, run_event_kind::node_status);
  auto j = run_event_json(e);
  EXPECT_EQ(j["event"], "node_status");
  EXPECT_EQ(j["node"], "gpu-1");
  EXPECT_EQ(j["slots"], 4);
  EXPECT_EQ(j["slots_in_use"], 3);
  EXPECT_EQ(j["lease"], "expiring");
  EXPECT_EQ(j["lease_until"], "2027-01-15T08:00:04.000Z");
  EXPECT_EQ(render_event_body(e),
            "node_status node=gpu-1 slots=3/4 lease=expiring until=2027-01-15T08:00:04.000Z");
}

} // namespace
} // namespace ad::runtime
