#include "runtime/distributed/placement.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

node_load node(std::string name, int slots, int running, std::vector<std::string> adapters,
               bool ready = true) {
  return {std::move(name), slots, running, std::move(adapters), ready};
}

TEST(placement, the_least_loaded_node_with_the_adapter_and_a_free_slot) {
  std::vector<node_load> nodes{node("a", 4, 3, {"codex"}), node("b", 4, 1, {"codex"}),
                               node("c", 2, 0, {"pi"})};
  auto p = place_attempt(nodes, "codex", "");
  ASSERT_TRUE(p.node);
  EXPECT_EQ(*p.node, 1u);
}

TEST(placement, load_is_running_per_slot_then_running_then_name) {
  // a: 2 of 8 (0.25), b: 1 of 2 (0.5): a is lighter though it runs more.
  std::vector<node_load> nodes{node("b", 2, 1, {"codex"}), node("a", 8, 2, {"codex"})};
  EXPECT_EQ(*place_attempt(nodes, "codex", "").node, 1u);
  // Equal load and running: the name decides, so placement is deterministic.
  std::vector<node_load> tie{node("z", 2, 0, {"codex"}), node("m", 2, 0, {"codex"})};
  EXPECT_EQ(*place_attempt(tie, "codex", "").node, 1u);
}

TEST(placement, the_previous_node_of_the_task_is_preferred_while_it_has_room) {
  std::vector<node_load> nodes{node("a", 4, 0, {"codex"}), node("b", 4, 3, {"codex"})};
  EXPECT_EQ(*place_attempt(nodes, "codex", "b").node, 1u);
  nodes[1].running = 4;
  EXPECT_EQ(*place_attempt(nodes, "codex", "b").node, 0u);
}

TEST(placement, an_earlier_coordinators_attempts_hold_their_slots) {
  std::vector<node_load> nodes{node("a", 2, 0, {"codex"}), node("b", 2, 1, {"codex"})};
  nodes[0].orphans = {"g__01_t__p1__worker__a01", "g__02_u__p1__worker__a01"};
  EXPECT_EQ(*place_attempt(nodes, "codex", "a").node, 1u) << "a is full with orphans";
  nodes[0].orphans.pop_back();
  nodes[1].running = 0;
  EXPECT_EQ(*place_attempt(nodes, "codex", "").node, 1u) << "b is lighter than a";
}

TEST(placement, a_node_that_is_not_ready_is_never_chosen) {
  std::vector<node_load> nodes{node("a", 4, 0, {"codex"}, false), node("b", 4, 2, {"codex"})};
  EXPECT_EQ(*place_attempt(nodes, "codex", "a").node, 1u);
}

TEST(placement, the_waiting_reason_says_what_is_missing) {
  EXPECT_EQ(place_attempt({}, "codex", "").waiting_reason, "waiting for a node: none is configured");
  std::vector<node_load> down{node("a", 4, 0, {"codex"}, false)};
  EXPECT_EQ(place_attempt(down, "codex", "").waiting_reason,
            "waiting for a node: none of 1 is connected");
  std::vector<node_load> other{node("a", 4, 0, {"pi"})};
  auto p = place_attempt(other, "codex", "");
  EXPECT_FALSE(p.node);
  EXPECT_EQ(p.waiting_reason, "waiting for a node that runs codex: none of the 1 connected has it");
  std::vector<node_load> busy{node("a", 1, 1, {"codex"}), node("b", 2, 2, {"codex"})};
  EXPECT_EQ(place_attempt(busy, "codex", "").waiting_reason,
            "waiting for a free slot on a node that runs codex (2 busy)");
}

TEST(placement_hold, nothing_is_placed_before_every_node_is_greeted_or_the_lease_and_margin_passed) {
  lease_terms t{2000, 7000};
  std::vector<node_load> nodes{node("a", 2, 0, {"codex"})};
  EXPECT_NE(placement_hold(nodes, "g/01_t", false, 8999, t).find("every node is greeted first"),
            std::string::npos);
  EXPECT_EQ(placement_hold(nodes, "g/01_t", false, 9000, t), "");
  EXPECT_EQ(placement_hold(nodes, "g/01_t", true, 0, t), "");
}

TEST(placement_hold, a_task_whose_earlier_attempt_still_runs_as_an_orphan_waits_for_it) {
  lease_terms t{2000, 7000};
  std::vector<node_load> nodes{node("a", 2, 1, {"codex"}), node("b", 2, 1, {"codex"})};
  nodes[1].orphans = {"g__01_t__p1__worker__a02"};
  EXPECT_EQ(placement_hold(nodes, "g/01_t", true, 0, t),
            "waiting for node b to stop g__01_t__p1__worker__a02, an attempt of an earlier "
            "coordinator");
  // Another task (even one whose name starts the same) is not held.
  EXPECT_EQ(placement_hold(nodes, "g/01_t2", true, 0, t), "");
  EXPECT_EQ(placement_hold(nodes, "g/02_u", true, 0, t), "");
}

} // namespace
} // namespace ad::runtime
