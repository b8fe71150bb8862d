#include "runtime/report/terminal_text.hpp"

#include <gtest/gtest.h>

#include "runtime/report/output_tail.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

TEST(display_width, escapes_take_no_columns_and_wide_characters_two) {
  EXPECT_EQ(display_width(""), 0u);
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("\x1b[31m1 blocked\x1b[0m"), 9u);
  EXPECT_EQ(display_width("\uCF54\uB4DC\uB9AC\uBDF0"), 8u);   // 코드리뷰
  EXPECT_EQ(display_width("\u5B8C\u4E86 ok"), 7u);              // 完了 ok
  EXPECT_EQ(display_width("e\u0301"), 1u);                      // e + combining acute
  EXPECT_EQ(display_width("\xF0\x9F\x9A\x80"), 2u);             // rocket emoji
  EXPECT_EQ(display_width("\u2026"), 1u);                       // …
  EXPECT_EQ(display_width("a\xFF" "b"), 3u);                    // an invalid byte: one column
  EXPECT_EQ(display_width("\xE2\x80"), 2u);                     // a cut sequence: per byte
}

TEST(fit_width, cuts_to_the_columns_with_an_ellipsis) {
  EXPECT_EQ(fit_width("abcdef", 6), "abcdef");
  EXPECT_EQ(fit_width("abcdefg", 6), "abcde\u2026");
  EXPECT_EQ(display_width(fit_width("abcdefg", 6)), 6u);
  EXPECT_EQ(fit_width("abcdefg", 0), "abcdefg");
  // A wide character that would straddle the edge is left out whole.
  auto korean = fit_width("ab\uCF54\uB4DC\uB9AC", 5);
  EXPECT_EQ(korean, "ab\uCF54\u2026");
  EXPECT_LE(display_width(korean), 5u);
  // Escapes are kept and the colour is reset after the cut.
  EXPECT_EQ(fit_width("\x1b[36mabcdefgh\x1b[0m", 4), "\x1b[36mabc\u2026\x1b[0m");
}

TEST(frame_rows, counts_wrapped_rows_by_display_width) {
  EXPECT_EQ(frame_rows("", 80), 0u);
  EXPECT_EQ(frame_rows("\n", 80), 1u);                        // an empty line takes a row
  EXPECT_EQ(frame_rows(std::string(80, 'x') + "\n", 80), 1u);  // exactly the width: no wrap
  EXPECT_EQ(frame_rows(std::string(81, 'x') + "\n", 80), 2u);
  EXPECT_EQ(frame_rows(std::string(160, 'x') + "\n", 80), 2u);
  EXPECT_EQ(frame_rows(std::string(161, 'x') + "\na\n", 80), 4u);
  // 41 Korean syllables are 82 columns: two rows at 80.
  std::string korean;
  for (int i = 0; i < 41; ++i)
    korean += "\uD55C";
  EXPECT_EQ(frame_rows(korean + "\n", 80), 2u);
  EXPECT_EQ(frame_rows(korean + "\n", 0), 1u);  // width unknown: a row per line
  // Colour codes do not make a line longer.
  EXPECT_EQ(frame_rows("\x1b[31m" + std::string(80, 'x') + "\x1b[0m\n", 80), 1u);
  EXPECT_EQ(frame_rows("a\nb", 80), 2u);  // a last line without '\n'
}

TEST(format_local_clock, applies_the_offset_and_wraps_the_day) {
  constexpr millis t = 1'800'000'000'000;  // 2027-01-15T08:00:00Z
  EXPECT_EQ(format_local_clock(t, 0), "08:00:00");
  EXPECT_EQ(format_local_clock(t + 5'999, 9 * 3600), "17:00:05");
  EXPECT_EQ(format_local_clock(t, -9 * 3600), "23:00:00");
  EXPECT_EQ(format_local_clock(t, 16 * 3600 + 1800), "00:30:00");
}

TEST(read_terminal_size, is_unknown_off_a_terminal) {
  EXPECT_EQ(read_terminal_size(-1), terminal_size{});
}

TEST(last_rendered_line, is_the_last_complete_non_empty_line) {
  test::temp_dir dir;
  auto locator = (dir.path() / "locator.json").string();
  EXPECT_EQ(last_rendered_line(locator), "");  // no output yet
  dir.write("normalized-output.log", "assistant: reading\ntool: Write src/x.cpp\n\nhalf");
  EXPECT_EQ(last_rendered_line(locator), "tool: Write src/x.cpp");
  dir.write("normalized-output.log", std::string(5000, 'a') + "\nlast\n");
  EXPECT_EQ(last_rendered_line(locator), "last");
  dir.write("normalized-output.log", std::string(5000, 'a') + "\n");
  EXPECT_EQ(last_rendered_line(locator), "");  // longer than the window: not shown in part
  EXPECT_EQ(last_rendered_line(""), "");
}

TEST(attempt_output_reader, finds_a_new_attempt_by_its_identity_before_its_locator_is_known) {
  test::temp_dir runs;
  attempt_output_reader read(runs.path().string());
  EXPECT_EQ(read("g__01_a__p1__worker__a01", ""), "");  // no folder yet
  runs.write("20270115T080000Z__g__01_a__p1__worker__a01/normalized-output.log", "old\n");
  runs.write("20270115T090000Z__g__01_a__p1__worker__a01/normalized-output.log",
             "tool: Write src/x.cpp\n");
  runs.write("20270115T090000Z__g__01_a__p1__worker__a011/normalized-output.log", "other\n");
  EXPECT_EQ(find_attempt_folder(runs.path().string(), "g__01_a__p1__worker__a01"),
            (runs.path() / "20270115T090000Z__g__01_a__p1__worker__a01").string());
  EXPECT_EQ(read("g__01_a__p1__worker__a01", ""), "tool: Write src/x.cpp");
  runs.write("20270115T090000Z__g__01_a__p1__worker__a01/normalized-output.log",
             "tool: Write src/x.cpp\nassistant: done\n");
  EXPECT_EQ(read("g__01_a__p1__worker__a01", ""), "assistant: done");
  EXPECT_EQ(read("g__02_b__p1__worker__a01", ""), "");
  EXPECT_EQ(find_attempt_folder("/nonexistent", "x"), "");
}

TEST(attempt_output_reader, tokens_so_far_are_the_usage_its_locator_holds) {
  test::temp_dir runs;
  attempt_output_reader read(runs.path().string());
  auto folder = "20270115T090000Z__g__01_a__p1__worker__a01";
  runs.write(std::string(folder) + "/normalized-output.log", "tool: Read a.cpp\n");
  runs.write(std::string(folder) + "/locator.json", R"({"identity":"x","status":"running"})");
  auto live = read.live("g__01_a__p1__worker__a01", "");
  EXPECT_EQ(live.output, "tool: Read a.cpp");
  EXPECT_TRUE(live.usage.empty()) << "no usage reported yet";
  auto locator = runs.write(std::string(folder) + "/locator.json",
                            R"({"identity":"x","usage":{"input_tokens":321,"output_tokens":12}})");
  live = read.live("g__01_a__p1__worker__a01", "");
  EXPECT_EQ(live.usage.input_tokens, 321);
  EXPECT_EQ(live.usage.output_tokens, 12);
  EXPECT_EQ(read_attempt_live(locator.string()).usage, live.usage);
  runs.write(std::string(folder) + "/locator.json", R"({"usage":{"input_tokens":-1}})");
  EXPECT_TRUE(locator_usage(locator.string()).empty()) << "a damaged record shows nothing";
  EXPECT_TRUE(locator_usage((runs.path() / "none.json").string()).empty());
}

} // namespace
} // namespace ad::runtime
