#include "runtime/core/json_events.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/json_event_log.hpp"

namespace ad::runtime {
namespace {

using event_log = test::json_event_log;

std::vector<std::string> nlohmann_events(const std::string& text, int refuse_at = -1) {
  event_log log(refuse_at);
  json::sax_parse(text, &log);
  return log.events;
}

// The events are nlohmann's for the same text, value by value.
TEST(json_events, hands_over_the_events_nlohmanns_parser_gives) {
  const std::vector<std::string> texts = {
    R"({"seq":7,"changes":[{"op":"set_counter","task":"a/b","value":-3}]})",
    R"({"a":{},"b":[],"c":[[],{}],"d":null,"e":true,"f":false})",
    R"([0,1,-1,-10,9223372036854775807,9223372036854775808,18446744073709551615,-9223372036854775808])",
    R"([2.5,-0.5,1e300,1E-7,0.0,1.0])",
    R"({"escaped":"tab\there \"quoted\" \\ \/ \u00e9 \ud83d\ude00","":"empty key"})",
    R"({"dup":1,"dup":2})",
    R"("just a string")",
    "  \n\t{\"spaced\" : [ 1 , 2 ] }  \n",
    "42",
    R"({"at":"2026-01-02","x":-0.25,"y":-0e3,"z":-10})",  // "-0" that is no integer -0
  };
  for (const auto& text : texts) {
    event_log log;
    EXPECT_EQ(feed_json_events(text, log), json_events::all) << text;
    EXPECT_EQ(log.events, nlohmann_events(text)) << text;
  }
}

// A refusal stops the events where nlohmann's parser stops them.
TEST(json_events, a_refused_event_is_the_last_one) {
  const std::string text = R"({"a":[1,2,{"b":"c"}],"d":4})";
  auto all = nlohmann_events(text);
  ASSERT_GT(all.size(), 8u);
  for (int at : {0, 3, 7, static_cast<int>(all.size()) - 1}) {
    event_log log(at);
    EXPECT_EQ(feed_json_events(text, log), json_events::refused) << at;
    EXPECT_EQ(log.events.size(), static_cast<std::size_t>(at) + 1) << at;
    EXPECT_EQ(log.events, nlohmann_events(text, at)) << at;
  }
}

// Text simdjson does not take gets no event at all: the caller's own
// parser reads it and says why.
TEST(json_events, text_it_does_not_take_gets_no_event) {
  std::string deep(2000, '[');
  deep += std::string(2000, ']');
  const std::vector<std::string> texts = {
    "",
    "{",
    R"({"a":1,})",
    R"({"a":1} trailing)",
    "[1,2",
    "{'single':1}",
    "\"\x01 control\"",
    "\"\xff\xfe not utf-8\"",
    "[18446744073709551616]",  // an integer past 64 bits
    "[-0]",                    // its sign would be lost
    R"({"a":-0})",
    R"({"name":"task-0"})",    // "-0" is looked for in the whole text
    deep,
  };
  for (const auto& text : texts) {
    event_log log;
    EXPECT_EQ(feed_json_events(text, log), json_events::not_read) << text.substr(0, 40);
    EXPECT_TRUE(log.events.empty()) << text.substr(0, 40);
  }
}

// The parser is kept between texts: a long text, then a short one, then a
// long one again read as each alone.
TEST(json_events, texts_of_any_size_follow_each_other) {
  json big = json::array();
  for (int i = 0; i < 5000; ++i)
    big.push_back({{"i", i}, {"name", "task " + std::to_string(i)}});
  const std::vector<std::string> texts = {big.dump(), "[1]", big.dump(), "{}"};
  for (const auto& text : texts) {
    event_log log;
    EXPECT_EQ(feed_json_events(text, log), json_events::all);
    EXPECT_EQ(log.events, nlohmann_events(text));
  }
}

} // namespace
} // namespace ad::runtime
