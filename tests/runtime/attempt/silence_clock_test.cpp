// silence_clock: heartbeats every interval of silence, one inspection per
// silence (postponed while a pi tool runs), the stall limit once, output
// resetting everything.

#include <gtest/gtest.h>

#include "runtime/attempt/silence_clock.hpp"

namespace ad::runtime {
namespace {

TEST(silence_clock, HeartbeatsEveryIntervalOfSilence) {
  silence_clock c{{100, 1000, 0}, 0};
  EXPECT_EQ(c.next_deadline(), 100);
  auto a = c.check(99, tool_activity::idle);
  EXPECT_FALSE(a.heartbeat);
  a = c.check(100, tool_activity::idle);
  EXPECT_TRUE(a.heartbeat);
  EXPECT_EQ(a.silent_ms, 100);
  EXPECT_FALSE(a.inspect);
  EXPECT_FALSE(a.stall);
  EXPECT_EQ(c.next_deadline(), 200);
}

TEST(silence_clock, InspectsOncePerSilence) {
  silence_clock c{{100, 250, 0}, 0};
  int inspections = 0;
  for (int64_t t = 0; t <= 1000; t = c.next_deadline())
    inspections += c.check(t, tool_activity::idle).inspect ? 1 : 0;
  EXPECT_EQ(inspections, 1);
  c.on_output(1000);
  EXPECT_EQ(c.next_deadline(), 1100);
  c.check(1100, tool_activity::idle);
  c.check(1200, tool_activity::idle);
  EXPECT_EQ(c.next_deadline(), 1250);
  auto a = c.check(1250, tool_activity::idle);
  EXPECT_TRUE(a.inspect);
  EXPECT_EQ(a.silent_ms, 250);
}

TEST(silence_clock, ARunningToolPostponesTheInspection) {
  silence_clock c{{100, 250, 0}, 0};
  c.check(100, tool_activity::tool_running);
  c.check(200, tool_activity::tool_running);
  EXPECT_EQ(c.next_deadline(), 250);
  auto a = c.check(250, tool_activity::tool_running);
  EXPECT_FALSE(a.inspect);
  EXPECT_FALSE(a.heartbeat);
  EXPECT_EQ(c.next_deadline(), 300);  // the heartbeat at 300, the inspection at 350
  EXPECT_TRUE(c.check(300, tool_activity::tool_running).heartbeat);
  EXPECT_EQ(c.next_deadline(), 350);
  a = c.check(350, tool_activity::idle);
  EXPECT_TRUE(a.inspect);
  EXPECT_EQ(a.silent_ms, 350);
}

TEST(silence_clock, TheStallLimitIsReportedOnce) {
  silence_clock c{{100, 1000, 250}, 0};
  c.check(100, tool_activity::idle);
  c.check(200, tool_activity::idle);
  EXPECT_EQ(c.next_deadline(), 250);
  auto a = c.check(250, tool_activity::idle);
  EXPECT_TRUE(a.stall);
  EXPECT_EQ(c.next_deadline(), 300);
  EXPECT_FALSE(c.check(300, tool_activity::idle).stall);
}

TEST(silence_clock, OutputResetsTheClocks) {
  silence_clock c{{100, 250, 400}, 0};
  c.on_output(90);
  EXPECT_EQ(c.next_deadline(), 190);
  EXPECT_FALSE(c.check(150, tool_activity::idle).heartbeat);
  auto a = c.check(190, tool_activity::idle);
  EXPECT_TRUE(a.heartbeat);
  EXPECT_EQ(a.silent_ms, 100);
}

} // namespace
} // namespace ad::runtime
