#pragma once
// The policy's names of the days of the week, as its windows read and write
// them (policy::window::weekdays: 0 = Sunday .. 6 = Saturday).

#include <array>
#include <string_view>

namespace ad::runtime {

inline constexpr std::array<std::string_view, 7> weekday_names = {"sun", "mon", "tue", "wed",
                                                                  "thu", "fri", "sat"};

} // namespace ad::runtime
