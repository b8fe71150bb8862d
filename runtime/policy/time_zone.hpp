#pragma once
// Named IANA time zones for policy rules with time windows. A time_zone is an
// immutable value read from the system tz database (TZif files under
// /usr/share/zoneinfo, versions 1 to 4, including the POSIX TZ footer that
// describes times after the last listed transition). It converts a UTC
// instant into local calendar fields; it never touches the process-wide TZ
// variable or localtime(), so it is safe from any thread and in tests.
// Errors: load_time_zone returns invalid_argument for a malformed zone name,
// not_found when the zone file does not exist, and corruption naming the file
// when its content is not valid TZif.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/status.hpp"

namespace ad::runtime {

// Local calendar fields of one instant in one zone.
struct local_time_fields {
  int year = 1970;
  int month = 1;   // 1..12
  int day = 1;     // 1..31
  int weekday = 4; // 0 = Sunday .. 6 = Saturday
  int hour = 0;
  int minute = 0;
  int second = 0;
  int32_t utc_offset_s = 0;
};

// A POSIX TZ rule ("KST-9", "CET-1CEST,M3.5.0,M10.5.0/3"): the zone's
// behaviour after its last listed transition.
struct posix_tz_rule {
  enum class date_kind : uint8_t { month_week_day, julian_no_leap, julian_zero };
  struct change {
    date_kind kind = date_kind::month_week_day;
    int month = 0, week = 0, weekday = 0; // Mm.w.d
    int day = 0;                          // Jn (1..365) or n (0..365)
    int32_t time_s = 7200;                // local time of the change
  };
  int32_t std_offset_s = 0; // east of UTC
  bool has_dst = false;
  int32_t dst_offset_s = 0;
  change start, end;
};

// Parses the POSIX TZ string form used in TZif footers.
result<posix_tz_rule> parse_posix_tz(std::string_view text);
// UTC offset the rule gives at unix second t.
int32_t posix_tz_offset(const posix_tz_rule& rule, int64_t t);

class time_zone {
public:
  // UTC.
  time_zone();
  // A zone with one fixed offset (east of UTC), for tests and "UTC".
  static time_zone fixed(std::string name, int32_t offset_s);

  const std::string& name() const { return name_; }
  int32_t utc_offset_s(millis t) const;
  local_time_fields to_local(millis t) const;

private:
  friend result<time_zone> parse_tzif(std::string_view bytes, std::string name);
  std::string name_ = "UTC";
  std::vector<int64_t> transitions_;     // unix seconds, ascending
  std::vector<int32_t> transition_offsets_; // offset in force from each transition
  int32_t initial_offset_s_ = 0;         // before the first transition
  bool has_footer_ = false;
  posix_tz_rule footer_;
};

// Parses TZif content; `name` is the zone name the value reports.
result<time_zone> parse_tzif(std::string_view bytes, std::string name);

// Loads a zone by IANA name ("Asia/Seoul") from root. "UTC" and "Etc/UTC"
// always work, even without a tz database.
result<time_zone> load_time_zone(std::string_view name,
                                 const std::filesystem::path& root = "/usr/share/zoneinfo");

// The TZif bytes load_time_zone parses for name (empty for "UTC" and
// "Etc/UTC"), so a zone can travel with a message trace.
result<std::string> read_time_zone_file(std::string_view name,
                                        const std::filesystem::path& root = "/usr/share/zoneinfo");
// The zone from bytes read_time_zone_file returned.
result<time_zone> time_zone_from_tzif(std::string_view name, std::string_view bytes);

} // namespace ad::runtime
