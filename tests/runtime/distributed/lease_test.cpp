#include "runtime/distributed/lease.hpp"
#include "runtime/distributed/lease_file.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <thread>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

TEST(lease, the_node_fences_strictly_after_the_lease) {
  EXPECT_FALSE(lease_expired(1000, 11'000, 10'000));
  EXPECT_TRUE(lease_expired(1000, 11'001, 10'000));
}

TEST(lease, a_replacement_waits_for_lease_and_margin_after_the_node_was_last_heard) {
  lease_terms t{2000, 7000};
  EXPECT_EQ(replacement_allowed_at(5000, t), 14'000);
  // The node's last renewal precedes the coordinator's hearing of it, so
  // the node has fenced (at most last_heard + lease) before the margin.
  EXPECT_GT(replacement_allowed_at(5000, t), 5000 + t.lease_ms);
}

TEST(lease, renewals_come_four_times_per_lease_and_at_least_every_50_ms) {
  EXPECT_EQ(renew_interval_ms({10'000, 0}), 2500);
  EXPECT_EQ(renew_interval_ms({100, 0}), 50);
}

TEST(lease, terms_must_cover_the_keepers_check_and_grace) {
  EXPECT_TRUE(check_lease_terms({2000, 6000}, 5000).is_ok());
  auto st = check_lease_terms({2000, 5999}, 5000);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("--lease-margin-ms"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("at least 6000 ms"), std::string::npos) << st.message();
  auto short_lease = check_lease_terms({999, 100'000}, 0);
  ASSERT_FALSE(short_lease.is_ok());
  EXPECT_NE(short_lease.message().find("--lease-ms"), std::string::npos);
}

TEST(lease_file, each_node_process_has_its_own_file_and_a_touch_renews_it) {
  test::temp_dir dir;
  auto file = node_lease_file(dir.path(), 4242);
  EXPECT_EQ(file.filename(), "lease.4242");
  ASSERT_TRUE(touch_lease_file(file).is_ok());
  struct stat first{};
  ASSERT_EQ(::stat(file.c_str(), &first), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(touch_lease_file(file).is_ok());
  struct stat second{};
  ASSERT_EQ(::stat(file.c_str(), &second), 0);
  auto ns = [](const struct stat& s) { return s.st_mtim.tv_sec * 1'000'000'000LL + s.st_mtim.tv_nsec; };
  EXPECT_GT(ns(second), ns(first));
  auto missing = touch_lease_file(dir.path() / "no-such-dir" / "lease.1");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_NE(missing.message().find("no-such-dir"), std::string::npos);
}

} // namespace
} // namespace ad::runtime
