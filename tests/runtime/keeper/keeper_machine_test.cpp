// The keeper's decisions without processes: SIGTERM then SIGKILL after the
// grace, what the agent left ended after its end, the drain after the
// agent's end, and the lease rule.

#include "runtime/keeper/keeper_machine.hpp"

#include <gtest/gtest.h>
#include <csignal>

namespace ad::runtime {
namespace {

keeper_timing timing() {
  keeper_timing t;
  t.grace_ms = 1000;
  t.drain_ms = 2000;
  t.cleanup_grace_ms = 500;
  t.cleanup_limit_ms = 3000;
  t.cleanup_poll_ms = 20;
  return t;
}

TEST(keeper_machine, a_stop_terminates_then_kills_after_the_grace) {
  keeper_machine m(timing());
  EXPECT_EQ(m.next_deadline(), -1);
  EXPECT_EQ(m.stop(keeper_initiator::dispatcher, 100), group_signal::terminate);
  EXPECT_EQ(m.stop(keeper_initiator::lease, 150), group_signal::none) << "the first request wins";
  EXPECT_EQ(m.next_deadline(), 1100);
  EXPECT_EQ(m.tick(1099), group_signal::none);
  EXPECT_EQ(m.tick(1100), group_signal::kill);
  EXPECT_EQ(m.tick(5000), group_signal::none) << "killed once";
  EXPECT_EQ(m.termination(), (keeper_termination{keeper_initiator::dispatcher, SIGKILL}));
  m.agent_ended(1110);
  EXPECT_EQ(m.leftovers(leftover_presence::none, 1110), group_signal::none);
  EXPECT_FALSE(m.finished()) << "its output is still open";
  m.output_closed();
  EXPECT_TRUE(m.finished());
}

TEST(keeper_machine, an_agent_that_obeys_sigterm_is_not_killed) {
  keeper_machine m(timing());
  ASSERT_EQ(m.stop(keeper_initiator::lease, 0), group_signal::terminate);
  m.agent_ended(300);
  EXPECT_EQ(m.leftovers(leftover_presence::none, 300), group_signal::none);
  m.output_closed();
  EXPECT_TRUE(m.finished());
  EXPECT_EQ(m.tick(1000), group_signal::none);
  EXPECT_EQ(m.termination(), (keeper_termination{keeper_initiator::lease, SIGTERM}));
}

// sleep 300 &, setsid sleep 301 &: what the agent left ends with it.
TEST(keeper_machine, what_the_agent_left_gets_sigterm_then_sigkill_after_the_cleanup_grace) {
  keeper_machine m(timing());
  EXPECT_EQ(m.leftovers(leftover_presence::some, 0), group_signal::none) << "the agent runs";
  m.agent_ended(1000);
  m.output_closed();
  EXPECT_EQ(m.next_deadline(), 1000) << "looked at at once";
  EXPECT_EQ(m.leftovers(leftover_presence::some, 1000), group_signal::terminate);
  EXPECT_FALSE(m.finished());
  EXPECT_EQ(m.next_deadline(), 1020);
  EXPECT_EQ(m.leftovers(leftover_presence::some, 1020), group_signal::none);
  EXPECT_EQ(m.leftovers(leftover_presence::some, 1500), group_signal::kill);
  EXPECT_EQ(m.leftovers(leftover_presence::some, 1520), group_signal::kill) << "and what forked meanwhile";
  EXPECT_EQ(m.leftovers(leftover_presence::none, 1540), group_signal::none);
  EXPECT_TRUE(m.cleanup_done());
  EXPECT_FALSE(m.cleanup_gave_up());
  EXPECT_TRUE(m.finished());
  EXPECT_EQ(m.termination().initiator, keeper_initiator::none) << "the agent itself was not stopped";
}

TEST(keeper_machine, leftovers_that_obey_sigterm_are_not_killed) {
  keeper_machine m(timing());
  m.agent_ended(0);
  EXPECT_EQ(m.leftovers(leftover_presence::some, 0), group_signal::terminate);
  EXPECT_EQ(m.leftovers(leftover_presence::none, 40), group_signal::none);
  EXPECT_TRUE(m.cleanup_done());
}

TEST(keeper_machine, after_a_stop_killed_the_agent_its_leftovers_are_killed_at_once) {
  keeper_machine m(timing());
  ASSERT_EQ(m.stop(keeper_initiator::dispatcher, 0), group_signal::terminate);
  ASSERT_EQ(m.tick(1000), group_signal::kill);
  m.agent_ended(1010);
  EXPECT_EQ(m.leftovers(leftover_presence::some, 1010), group_signal::kill);
}

TEST(keeper_machine, processes_that_will_not_die_are_given_up_at_the_limit) {
  keeper_machine m(timing());
  m.agent_ended(0);
  m.output_closed();
  EXPECT_EQ(m.leftovers(leftover_presence::some, 0), group_signal::terminate);
  EXPECT_EQ(m.leftovers(leftover_presence::some, 500), group_signal::kill);
  EXPECT_EQ(m.leftovers(leftover_presence::some, 2999), group_signal::kill);
  EXPECT_EQ(m.leftovers(leftover_presence::some, 3000), group_signal::none);
  EXPECT_TRUE(m.cleanup_gave_up());
  EXPECT_TRUE(m.finished());
}

TEST(keeper_machine, output_held_open_after_the_end_is_drained_for_a_while_then_closed) {
  keeper_machine m(timing());
  m.agent_ended(500);
  EXPECT_EQ(m.leftovers(leftover_presence::none, 500), group_signal::none);
  EXPECT_EQ(m.stop(keeper_initiator::dispatcher, 600), group_signal::none) << "it has ended already";
  EXPECT_EQ(m.termination().initiator, keeper_initiator::none);
  EXPECT_EQ(m.next_deadline(), 2500);
  EXPECT_FALSE(m.drain_over(2499));
  EXPECT_TRUE(m.drain_over(2500));
  m.output_closed();
  EXPECT_FALSE(m.drain_over(2500));
  EXPECT_TRUE(m.finished());
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
