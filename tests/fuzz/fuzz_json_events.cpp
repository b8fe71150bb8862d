// simdjson's events against nlohmann's (runtime/core/json_events.hpp): for
// any text simdjson takes, nlohmann's SAX parser takes it too and hands over
// the same events in the same order. Text simdjson does not take gets no
// event (the caller parses it with nlohmann instead).
#include <string>
#include <vector>

#include "runtime/core/json_events.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tests/support/json_event_log.hpp"

using ad::runtime::json;
using event_lines = ad::test::json_event_log;

AD_FUZZ_TARGET(json_events) {
  event_lines simd;
  auto fed = ad::runtime::feed_json_events(input, simd);
  ad::fuzz::fuzz_require(fed != ad::runtime::json_events::refused,
                         "a handler that takes every event was refused");
  if (fed == ad::runtime::json_events::not_read) {
    ad::fuzz::fuzz_require(simd.events.empty(), "text simdjson did not take got events");
    return 0;
  }
  event_lines nl;
  bool read = false;
  try {
    read = json::sax_parse(input.begin(), input.end(), &nl);
  } catch (const std::exception&) {
  }
  ad::fuzz::fuzz_require(read && !nl.failed, "simdjson took text nlohmann refuses");
  ad::fuzz::fuzz_require(simd.events == nl.events, "the events differ from nlohmann's");
  return 0;
}
