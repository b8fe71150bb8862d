// Hex encoding and SHA-256 digests of runtime/core/hash.
#include <gtest/gtest.h>

#include "runtime/core/hash.hpp"

namespace ad::runtime {
namespace {

TEST(hex, encodes_every_byte_as_two_lower_case_digits_and_decodes_back) {
  std::string bytes("\x00\x01\x7f\x80\xff", 5);
  EXPECT_EQ(hex_encode(bytes), "00017f80ff");
  auto back = hex_decode("00017f80ff");
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, bytes);
  EXPECT_EQ(hex_encode(""), "");
  EXPECT_EQ(hex_decode(""), std::string());
}

TEST(hex, rejects_odd_lengths_and_other_characters) {
  EXPECT_FALSE(hex_decode("abc"));
  EXPECT_FALSE(hex_decode("zz"));
  EXPECT_FALSE(hex_decode("AB"));
  EXPECT_FALSE(hex_decode("0g"));
}

TEST(sha256, digests_are_lower_case_hex) {
  EXPECT_EQ(sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

} // namespace
} // namespace ad::runtime
