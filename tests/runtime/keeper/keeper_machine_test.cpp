// The keeper's decisions without processes: SIGTERM then SIGKILL after the
// grace, a lingering group still killed, the drain after the agent's end,
// and the lease rule.

#include "runtime/keeper/keeper_machine.hpp"

#include <gtest/gtest.h>
#include <csignal>

namespace ad::runtime {
namespace {

TEST(keeper_machine, a_stop_terminates_then_kills_after_the_grace) {
  keeper_machine m({1000, 2000});
  EXPECT_EQ(m.next_deadline(), -1);
  EXPECT_EQ(m.stop(keeper_initiator::dispatcher, 100), group_signal::terminate);
  EXPECT_EQ(m.stop(keeper_initiator::lease, 150), group_signal::none) << "the first request wins";
  EXPECT_EQ(m.next_deadline(), 1100);
  EXPECT_EQ(m.tick(1099), group_signal::none);
  EXPECT_EQ(m.tick(1100), group_signal::kill);
  EXPECT_EQ(m.tick(5000), group_signal::none) << "killed once";
  EXPECT_EQ(m.termination(), (keeper_termination{keeper_initiator::dispatcher, SIGKILL}));
  m.agent_ended(group_presence::gone, 1110);
  EXPECT_FALSE(m.finished()) << "its output is still open";
  m.output_closed();
  EXPECT_TRUE(m.finished());
}

TEST(keeper_machine, an_agent_that_obeys_sigterm_is_not_killed) {
  keeper_machine m({1000, 2000});
  ASSERT_EQ(m.stop(keeper_initiator::lease, 0), group_signal::terminate);
  m.agent_ended(group_presence::gone, 300);
  m.output_closed();
  EXPECT_TRUE(m.finished());
  EXPECT_EQ(m.tick(1000), group_signal::none);
  EXPECT_EQ(m.termination(), (keeper_termination{keeper_initiator::lease, SIGTERM}));
}

TEST(keeper_machine, a_group_that_outlives_its_leader_after_a_stop_is_still_killed) {
  keeper_machine m({1000, 2000});
  ASSERT_EQ(m.stop(keeper_initiator::dispatcher, 0), group_signal::terminate);
  m.agent_ended(group_presence::alive, 200); // a child ignores SIGTERM
  m.output_closed();
  EXPECT_FALSE(m.finished());
  EXPECT_EQ(m.next_deadline(), 1000);
  EXPECT_EQ(m.tick(1000), group_signal::kill);
  EXPECT_TRUE(m.finished());
}

TEST(keeper_machine, output_held_open_after_the_end_is_drained_for_a_while_then_closed) {
  keeper_machine m({1000, 2000});
  m.agent_ended(group_presence::gone, 500);
  EXPECT_EQ(m.stop(keeper_initiator::dispatcher, 600), group_signal::none) << "it has ended already";
  EXPECT_EQ(m.termination().initiator, keeper_initiator::none);
  EXPECT_EQ(m.next_deadline(), 2500);
  EXPECT_FALSE(m.drain_over(2499));
  EXPECT_TRUE(m.drain_over(2500));
  m.output_closed();
  EXPECT_FALSE(m.drain_over(2500));
  EXPECT_TRUE(m.finished());
}

TEST(keeper_machine, the_drain_waits_past_a_pending_kill) {
  keeper_machine m({1000, 2000});
  ASSERT_EQ(m.stop(keeper_initiator::dispatcher, 0), group_signal::terminate);
  m.agent_ended(group_presence::alive, 100);
  EXPECT_FALSE(m.drain_over(2100));
  EXPECT_TRUE(m.drain_over(3000)); // kill deadline 1000 + drain 2000
}

TEST(keeper_lease, a_fresh_file_holds_and_an_old_or_missing_one_expires) {
  EXPECT_EQ(judge_lease(lease_file_presence::present, 1000, 1500, 500), lease_state::held);
  EXPECT_EQ(judge_lease(lease_file_presence::present, 1000, 1501, 500), lease_state::expired);
  EXPECT_EQ(judge_lease(lease_file_presence::present, 2000, 1000, 500), lease_state::held); // future mtime
  EXPECT_EQ(judge_lease(lease_file_presence::missing, 1000, 1000, 500), lease_state::expired);
  EXPECT_EQ(lease_check_interval_ms(400), 100);
  EXPECT_EQ(lease_check_interval_ms(60000), 1000);
  EXPECT_EQ(lease_check_interval_ms(2), 1);
}

} // namespace
} // namespace ad::runtime
