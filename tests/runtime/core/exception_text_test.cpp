#include "runtime/core/exception_text.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

#include "runtime/core/json.hpp"

namespace ad::runtime {
namespace {

TEST(exception_text, drops_the_json_librarys_tag) {
  try {
    (void) json(5).get<std::string>();
    FAIL() << "no exception";
  } catch (const std::exception& e) {
    ASSERT_NE(std::string(e.what()).find("[json.exception."), std::string::npos) << e.what();
    EXPECT_EQ(exception_text(e), "type must be string, but is number");
  }
}

TEST(exception_text, leaves_other_messages_alone) {
  EXPECT_EQ(exception_text(std::invalid_argument("\"seq\" is missing")), "\"seq\" is missing");
}

TEST(exception_text, drops_tags_anywhere_in_a_passed_on_message) {
  EXPECT_EQ(without_library_tags("a.json: [json.exception.parse_error.101] parse error at line 1"),
            "a.json: parse error at line 1");
  EXPECT_EQ(without_library_tags("x [json.exception.out_of_range.403] key 'a' not found; "
                                 "[json.exception.type_error.302] type must be string"),
            "x key 'a' not found; type must be string");
  EXPECT_EQ(without_library_tags("unterminated [json.exception."), "unterminated [json.exception.");
}

} // namespace
} // namespace ad::runtime
