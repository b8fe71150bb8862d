// The strict member reads of runtime/core/json.hpp: a number written with a
// fraction or an exponent never reaches an integer (nlohmann's cast of 1e300
// to int64_t is undefined behaviour).
#include "runtime/core/json.hpp"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ad::runtime {
namespace {

std::string member_error(const json& j, const auto& read) {
  try {
    read(j);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(json_member, an_integer_from_a_fraction_or_an_exponent_is_refused_naming_both) {
  json j = json::parse(R"({"n": 1e300, "m": 2.5, "whole": 3.0, "ok": 7})");
  EXPECT_EQ(member_error(j, [](const json& x) { return json_member<int64_t>(x, "n"); }),
            "\"n\" holds 1e+300 where an integer belongs");
  EXPECT_EQ(member_error(j, [](const json& x) { return json_member<int>(x, "m"); }),
            "\"m\" holds 2.5 where an integer belongs");
  EXPECT_EQ(member_error(j, [](const json& x) { return json_member<std::size_t>(x, "whole"); }),
            "\"whole\" holds 3.0 where an integer belongs");
  EXPECT_EQ(json_member<int64_t>(j, "ok"), 7);
}

TEST(json_member, a_fraction_deep_in_a_container_member_is_refused) {
  json j = json::parse(R"({"counts": {"a": 1, "b": [2, -1e19]}, "names": ["x", "y"]})");
  EXPECT_EQ(member_error(j,
                         [](const json& x) {
                           return json_member<std::map<std::string, json>>(x, "counts");
                         }),
            "\"counts\" holds -1e+19 where an integer belongs");
  EXPECT_EQ(json_member<std::vector<std::string>>(j, "names"),
            (std::vector<std::string>{"x", "y"}));
}

TEST(json_member, json_and_floating_point_members_keep_their_fractions) {
  json j = json::parse(R"({"raw": {"d": 1e300}, "ratio": 0.25})");
  EXPECT_EQ(json_member<json>(j, "raw")["d"].get<double>(), 1e300);
  EXPECT_EQ(json_member<double>(j, "ratio"), 0.25);
}

TEST(require_integer_numbers, accepts_integers_of_every_sign_and_refuses_any_fraction) {
  EXPECT_NO_THROW(require_integer_numbers(
    json::parse(R"({"a": [1, -2, 18446744073709551615, {"b": "1.5"}], "c": null})")));
  EXPECT_THROW(require_integer_numbers(json::parse(R"([[[{"x": [0, 1E2]}]]])")),
               std::invalid_argument);
  EXPECT_THROW(require_integer_numbers(json(-0.0)), std::invalid_argument);
}

} // namespace
} // namespace ad::runtime
