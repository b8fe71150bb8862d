// simdjson's events against nlohmann's (runtime/core/json_events.hpp): for
// any text simdjson takes, nlohmann's SAX parser takes it too and hands over
// the same events in the same order. Text simdjson does not take gets no
// event (the caller parses it with nlohmann instead). Read in pieces, at
// each depth, text taken is taken by nlohmann too, with the same events.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/json_events.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tests/support/json_event_log.hpp"

using ad::runtime::json;
using event_lines = ad::test::json_event_log;

namespace {

// nlohmann's events for the text; nullopt when it refuses the text.
std::optional<std::vector<std::string>> nlohmann_events(std::string_view input) {
  event_lines nl;
  bool read = false;
  try {
    read = json::sax_parse(input.begin(), input.end(), &nl);
  } catch (const std::exception&) {
  }
  if (!read || nl.failed)
    return std::nullopt;
  return nl.events;
}

} // namespace

AD_FUZZ_TARGET(json_events) {
  using ad::runtime::json_events;
  std::optional<std::vector<std::string>> expected;
  bool parsed = false;
  auto require_nlohmanns = [&](const event_lines& simd, const char* what) {
    if (!std::exchange(parsed, true))
      expected = nlohmann_events(input);
    ad::fuzz::fuzz_require(expected.has_value(), what);
    ad::fuzz::fuzz_require(simd.events == *expected, "the events differ from nlohmann's");
  };
  event_lines simd;
  auto fed = ad::runtime::feed_json_events(input, simd);
  ad::fuzz::fuzz_require(fed != json_events::refused,
                         "a handler that takes every event was refused");
  if (fed == json_events::not_read)
    ad::fuzz::fuzz_require(simd.events.empty(), "text simdjson did not take got events");
  else
    require_nlohmanns(simd, "simdjson took text nlohmann refuses");
  const ad::runtime::file_text text{std::string(input)};
  for (std::size_t depth : {0, 1, 2, 3}) {
    event_lines in_pieces;
    auto fed_in_pieces = ad::runtime::feed_json_events_in_pieces(text, depth, in_pieces);
    ad::fuzz::fuzz_require(fed_in_pieces != json_events::refused,
                           "a handler that takes every event was refused in pieces");
    if (fed_in_pieces == json_events::all)
      require_nlohmanns(in_pieces, "text taken in pieces is text nlohmann refuses");
  }
  return 0;
}
