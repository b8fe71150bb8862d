// Reads of agent event fields: a number out of range is no integer (a
// fuzzed claude `duration_ms` of 1E234 was undefined behaviour; the input is
// tests/fuzz/corpus/stream/claude-duration-1e234).
#include "runtime/agents/json_fields.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

TEST(agent_json_integer, a_float_out_of_range_is_no_integer) {
  auto event = parse_json(R"({"duration_ms":1E234,"turns":3.0,"big":-1e300})", "event");
  ASSERT_TRUE(event.is_ok());
  EXPECT_EQ(agent_json::integer(*event, "duration_ms"), std::nullopt);
  EXPECT_EQ(agent_json::integer(*event, "big"), std::nullopt);
  EXPECT_EQ(agent_json::integer(*event, "turns"), 3);
}

} // namespace
} // namespace ad::runtime
