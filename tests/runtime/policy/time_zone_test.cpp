#include "runtime/policy/time_zone.hpp"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

millis zone_at(const char* iso) {
  auto t = parse_utc_iso(iso);
  EXPECT_TRUE(t.is_ok()) << iso;
  return t ? *t : 0;
}

TEST(time_zone, seoul_is_nine_hours_east_without_dst) {
  auto z = load_time_zone("Asia/Seoul");
  ASSERT_TRUE(z.is_ok()) << z.error().to_string();
  EXPECT_EQ(z->name(), "Asia/Seoul");
  for (const char* t : {"2026-01-15T00:00:00Z", "2026-07-15T00:00:00Z", "2101-07-01T00:00:00Z"})
    EXPECT_EQ(z->utc_offset_s(zone_at(t)), 9 * 3600) << t;
  auto l = z->to_local(zone_at("2026-11-29T16:30:00Z"));
  EXPECT_EQ(l.year, 2026);
  EXPECT_EQ(l.month, 11);
  EXPECT_EQ(l.day, 30);
  EXPECT_EQ(l.hour, 1);
  EXPECT_EQ(l.minute, 30);
  EXPECT_EQ(l.weekday, 1); // Monday
}

TEST(time_zone, berlin_switches_at_the_listed_transitions_and_by_its_footer_rule) {
  auto z = load_time_zone("Europe/Berlin");
  ASSERT_TRUE(z.is_ok()) << z.error().to_string();
  EXPECT_EQ(z->utc_offset_s(zone_at("2026-01-15T12:00:00Z")), 3600);
  EXPECT_EQ(z->utc_offset_s(zone_at("2026-07-15T12:00:00Z")), 7200);
  // 2026-03-29 01:00 UTC is the switch to summer time.
  EXPECT_EQ(z->utc_offset_s(zone_at("2026-03-29T00:59:59Z")), 3600);
  EXPECT_EQ(z->utc_offset_s(zone_at("2026-03-29T01:00:00Z")), 7200);
  // Far beyond any listed transition: the POSIX footer decides.
  EXPECT_EQ(z->utc_offset_s(zone_at("2100-07-01T12:00:00Z")), 7200);
  EXPECT_EQ(z->utc_offset_s(zone_at("2100-12-01T12:00:00Z")), 3600);
}

TEST(posix_tz, month_week_day_rules_for_both_hemispheres) {
  auto cet = parse_posix_tz("CET-1CEST,M3.5.0,M10.5.0/3");
  ASSERT_TRUE(cet.is_ok());
  EXPECT_EQ(cet->std_offset_s, 3600);
  EXPECT_EQ(cet->dst_offset_s, 7200);
  // Last Sunday of March 2030 is the 31st; the change is at 01:00 UTC.
  EXPECT_EQ(posix_tz_offset(*cet, zone_at("2030-03-31T00:59:59Z") / 1000), 3600);
  EXPECT_EQ(posix_tz_offset(*cet, zone_at("2030-03-31T01:00:00Z") / 1000), 7200);
  // Last Sunday of October 2030 is the 27th; back at 01:00 UTC.
  EXPECT_EQ(posix_tz_offset(*cet, zone_at("2030-10-27T00:59:59Z") / 1000), 7200);
  EXPECT_EQ(posix_tz_offset(*cet, zone_at("2030-10-27T01:00:00Z") / 1000), 3600);

  auto sydney = parse_posix_tz("AEST-10AEDT,M10.1.0,M4.1.0/3");
  ASSERT_TRUE(sydney.is_ok());
  EXPECT_EQ(posix_tz_offset(*sydney, zone_at("2030-01-10T00:00:00Z") / 1000), 11 * 3600);
  EXPECT_EQ(posix_tz_offset(*sydney, zone_at("2030-06-10T00:00:00Z") / 1000), 10 * 3600);

  auto plain = parse_posix_tz("<+0530>-5:30");
  ASSERT_TRUE(plain.is_ok());
  EXPECT_EQ(plain->std_offset_s, 5 * 3600 + 1800);
  EXPECT_FALSE(parse_posix_tz("CET-1CEST,M13.5.0,M10.5.0").is_ok());
  EXPECT_FALSE(parse_posix_tz("").is_ok());
}

TEST(time_zone, bad_names_unknown_zones_and_corrupt_files_are_errors) {
  EXPECT_TRUE(load_time_zone("../etc/passwd").error().is_invalid_argument());
  EXPECT_TRUE(load_time_zone("/etc/localtime").error().is_invalid_argument());
  EXPECT_TRUE(load_time_zone("Mars/Olympus_Mons").error().is_not_found());
  test::temp_dir root;
  root.write("Bad/Zone", "TZif2 but nothing else");
  auto bad = load_time_zone("Bad/Zone", root.path());
  ASSERT_FALSE(bad.is_ok());
  EXPECT_TRUE(bad.error().is_corruption());
  EXPECT_NE(bad.error().message().find("Bad/Zone"), std::string::npos);
  auto utc = load_time_zone("UTC", root.path());
  ASSERT_TRUE(utc.is_ok());
  EXPECT_EQ(utc->utc_offset_s(zone_at("2026-07-01T00:00:00Z")), 0);
}

TEST(time_zone, zone_file_bytes_load_the_same_zone_elsewhere) {
  auto bytes = read_time_zone_file("Asia/Seoul");
  ASSERT_TRUE(bytes.is_ok()) << bytes.error().message();
  EXPECT_EQ(bytes->rfind("TZif", 0), 0u);
  // Under a name this machine does not know, the bytes still give Seoul.
  auto z = time_zone_from_tzif("Elsewhere/Seoul", *bytes);
  ASSERT_TRUE(z.is_ok()) << z.error().message();
  EXPECT_EQ(z->name(), "Elsewhere/Seoul");
  EXPECT_EQ(z->utc_offset_s(zone_at("2026-07-01T00:00:00Z")), 9 * 3600);
  auto utc = read_time_zone_file("UTC");
  ASSERT_TRUE(utc.is_ok());
  EXPECT_TRUE(utc->empty());
  ASSERT_TRUE(time_zone_from_tzif("UTC", *utc).is_ok());
  EXPECT_FALSE(time_zone_from_tzif("Elsewhere/Nothing", "").is_ok());
  EXPECT_TRUE(read_time_zone_file("Mars/Olympus_Mons").error().is_not_found());
}

TEST(time_zone, fixed_zone_handles_times_before_the_epoch) {
  auto z = time_zone::fixed("X", -3600);
  auto l = z.to_local(zone_at("1969-12-31T23:30:00Z"));
  EXPECT_EQ(l.year, 1969);
  EXPECT_EQ(l.hour, 22);
  EXPECT_EQ(l.minute, 30);
  EXPECT_EQ(l.weekday, 3); // Wednesday
}

} // namespace
} // namespace ad::runtime
