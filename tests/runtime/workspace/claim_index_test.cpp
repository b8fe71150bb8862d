// The claim index that admission and the dry run share: which conflict a
// requested write set has, and that a replaced or erased claim frees its
// paths.
#include "runtime/workspace/claim_index.hpp"

#include <gtest/gtest.h>

namespace ad::runtime {
namespace {

using paths = std::vector<std::string>;

TEST(claim_index, names_the_smallest_owner_and_its_smallest_shared_path) {
  claim_index c;
  c.put("g/03_c", false, paths{"/w/b.cpp", "/w/a.cpp"});
  c.put("g/02_b", false, paths{"/w/c.cpp", "/w/b.cpp"});
  EXPECT_FALSE(c.conflict_of("g/09_x", paths{"/w/z.cpp"}));
  auto hit = c.conflict_of("g/09_x", paths{"/w/a.cpp", "/w/c.cpp", "/w/b.cpp"});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->owner, "g/02_b");
  EXPECT_EQ(hit->path, "/w/b.cpp");
  EXPECT_FALSE(c.conflict_of("g/02_b", paths{"/w/c.cpp"})) << "its own claim is no conflict";
}

TEST(claim_index, an_exclusive_claim_conflicts_with_everything_else) {
  claim_index c;
  c.put("g/05_e", true, paths{});
  c.put("g/01_a", false, paths{"/w/a.cpp"});
  auto hit = c.conflict_of("g/09_x", paths{"/w/z.cpp"});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->owner, "g/05_e");
  EXPECT_EQ(hit->path, "");
  hit = c.conflict_of("g/09_x", paths{"/w/a.cpp"});
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->owner, "g/01_a") << "the smaller owner wins";
  EXPECT_FALSE(c.conflict_of("g/05_e", paths{"/w/z.cpp"}));
}

TEST(claim_index, a_replaced_or_erased_claim_frees_its_paths) {
  claim_index c;
  c.put("g/01_a", false, paths{"/w/a.cpp"});
  c.put("g/01_a", false, paths{"/w/b.cpp"});
  EXPECT_FALSE(c.conflict_of("g/02_b", paths{"/w/a.cpp"}));
  EXPECT_TRUE(c.conflict_of("g/02_b", paths{"/w/b.cpp"}));
  c.put("g/01_a", true, paths{});
  EXPECT_EQ(c.conflict_of("g/02_b", paths{"/w/z.cpp"})->path, "");
  c.erase("g/01_a");
  EXPECT_FALSE(c.conflict_of("g/02_b", paths{"/w/b.cpp", "/w/z.cpp"}));
  c.erase("g/01_a"); // twice: nothing to do
}

} // namespace
} // namespace ad::runtime
