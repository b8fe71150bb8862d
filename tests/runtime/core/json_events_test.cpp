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

json_events pieces(const std::string& text, std::size_t depth, event_log& log) {
  return feed_json_events_in_pieces(file_text(text), depth, log);
}

// A snapshot's shape: tasks three containers deep, with lists and scalars
// above them.
std::string snapshot_like_text() {
  json tasks = json::object();
  for (int i = 0; i < 300; ++i)
    tasks["grp/" + std::to_string(i)] = {
      {"worker_done", i % 2 == 0}, {"counters", {{"retries", i}}},
      {"route_history", json::array({{{"lane", "cloud"}, {"grade", 5}, {"cost", 0.25}}})},
      {"note", "tab\there \u00e9"}, {"none", nullptr}, {"empty", json::object()}};
  json counters = json::array();
  for (int i = 0; i < 50; ++i)
    counters.push_back({{"task", "grp/" + std::to_string(i)}, {"count", i}});
  return json{{"format", 1},
              {"seq", 18446744073709551615ull},
              {"workspace", {{"path", "/w"}, {"id", "abc"}}},
              {"state",
               {{"attempt_counters", counters},
                {"claims", json::array()},
                {"spent", {{"a", {{"in", 10}, {"usd", 1.5}}}}},
                {"tasks", tasks}}}}
    .dump();
}

// In pieces, at any depth, the events are still nlohmann's for the text.
TEST(json_events, in_pieces_hands_over_the_events_nlohmanns_parser_gives) {
  std::vector<std::string> texts = {
    snapshot_like_text(),
    R"({"seq":7,"changes":[{"op":"set_counter","task":"a/b","value":-3}]})",
    R"({"a":{},"b":[],"c":[[],{}],"d":null,"e":true,"f":false})",
    R"([0,1,-1,-10,9223372036854775807,9223372036854775808,18446744073709551615])",
    R"({"escaped key \"\u00e9\"":{"x":[2.5,-0.5,1e300]},"":"empty key"})",
    R"({"dup":{"a":1},"dup":{"a":2}})",
    R"({"n":[0,-1,18.46744073709551615,1e-300,-2.5E10,12345678901234567890]})",
    "  \n\t{\"spaced\" : [ 1 , { \"deeper\" : [ true ] } ] }  \n",
    R"("just a string")",
    "42",
    // "-0" where it may be the integer: the piece goes through nlohmann.
    R"({"tasks":{"a":{"v":-0,"w":[-0]},"task-0":{"v":1}},"z":-0})",
  };
  for (const auto& text : texts)
    for (std::size_t depth : {0, 1, 2, 3, 4, 100}) {
      event_log log;
      EXPECT_EQ(pieces(text, depth, log), json_events::all) << depth << " " << text.substr(0, 60);
      EXPECT_EQ(log.events, nlohmann_events(text)) << depth << " " << text.substr(0, 60);
    }
}

TEST(json_events, in_pieces_a_refused_event_is_the_last_one) {
  const std::string text = snapshot_like_text();
  auto all = nlohmann_events(text);
  ASSERT_GT(all.size(), 3000u);
  for (std::size_t depth : {1, 3})
    for (int at : {0, 1, 5, 40, 1234, static_cast<int>(all.size()) - 2,
                   static_cast<int>(all.size()) - 1}) {
      event_log log(at);
      EXPECT_EQ(pieces(text, depth, log), json_events::refused) << depth << " " << at;
      EXPECT_EQ(log.events, nlohmann_events(text, at)) << depth << " " << at;
    }
  // Refused inside a piece that goes through nlohmann ("-0").
  const std::string minus_zero = R"({"tasks":{"a":{"v":-0,"w":1}}})";
  auto events = nlohmann_events(minus_zero);
  for (int at = 0; at < static_cast<int>(events.size()); ++at) {
    event_log log(at);
    EXPECT_EQ(pieces(minus_zero, 2, log), json_events::refused) << at;
    EXPECT_EQ(log.events, nlohmann_events(minus_zero, at)) << at;
  }
}

// Damage anywhere, before the first piece or after many, is not_read: the
// caller then discards what its handler took and parses with nlohmann.
TEST(json_events, in_pieces_text_it_does_not_take_is_not_read) {
  const std::string good = snapshot_like_text();
  std::string deep(2000, '[');
  deep += std::string(2000, ']');
  std::string bad_utf8 = good;
  bad_utf8.insert(bad_utf8.rfind("grp/"), "\xff");
  std::string bad_late_piece = good;
  bad_late_piece.insert(bad_late_piece.rfind("\"none\""), "tru,");
  std::string missing_comma = good;
  missing_comma.erase(missing_comma.rfind(",\"grp/"), 1);
  const std::vector<std::string> texts = {
    "",
    "   ",
    "{",
    R"({"a":1,})",
    R"({"a":{"b":1},})",
    R"({"a":1} trailing)",
    R"({"a":{"b":1}}})",
    R"({"a":[1,2})",
    R"({"a" {"b":1}})",
    R"({"a":{"b":1} "c":2})",
    "[1,2",
    "{'single':1}",
    "{\"a\":\"\x01 control\"}",
    "[18446744073709551616]",
    R"({"a":{"b":[18446744073709551616]}})",
    R"({"a":{"b":-0,}})",  // a "-0" piece simdjson does not take
    // A scalar above the pieces followed by what may not follow it.
    R"({"a":["o{p":"s","t":1,false]})",
    R"({"a":[1 2]})",
    R"({"a":{"b":null:1}})",
    R"({"a":[true,]})",
    R"({"a":["x"}})",
    deep,
    good + " x",
    good.substr(0, good.size() - 1),
    bad_utf8,
    bad_late_piece,
    missing_comma,
  };
  for (const auto& text : texts)
    for (std::size_t depth : {1, 2, 3}) {
      event_log log;
      EXPECT_EQ(pieces(text, depth, log), json_events::not_read)
        << depth << " " << text.substr(0, 60);
    }
}

} // namespace
} // namespace ad::runtime
