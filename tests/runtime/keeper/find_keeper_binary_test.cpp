// Where the dispatcher finds ad-keeper: $AD_KEEPER, beside its own
// executable, then PATH; a clear error naming the places and the fix.
#include <gtest/gtest.h>
#include <cstdlib>
#include <sys/stat.h>

#include "runtime/keeper/keeper_binary.hpp"
#include "tests/support/temp_dir.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

// Sets an environment variable for the scope, restoring the old value.
class scoped_env {
public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name))
      old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~scoped_env() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char* name_;
  std::optional<std::string> old_;
};

fs::path fake_keeper(const test::temp_dir& dir, const std::string& rel, bool exec = true) {
  auto p = dir.write(rel, "#!/bin/sh\n");
  ::chmod(p.c_str(), exec ? 0755 : 0644);
  return p;
}

TEST(find_keeper_binary, ad_keeper_in_the_environment_wins) {
  test::temp_dir dir;
  auto keeper = fake_keeper(dir, "mine/ad-keeper");
  scoped_env env("AD_KEEPER", keeper.c_str());
  auto found = find_keeper_binary();
  ASSERT_TRUE(found.is_ok()) << found.error().message();
  EXPECT_EQ(*found, keeper);
}

TEST(find_keeper_binary, an_ad_keeper_that_is_not_executable_is_an_error_naming_it) {
  test::temp_dir dir;
  auto keeper = fake_keeper(dir, "mine/ad-keeper", false);
  scoped_env env("AD_KEEPER", keeper.c_str());
  auto found = find_keeper_binary();
  ASSERT_FALSE(found.is_ok());
  EXPECT_NE(found.error().message().find("AD_KEEPER names " + keeper.string()), std::string::npos)
      << found.error().message();
}

TEST(find_keeper_binary, without_one_beside_the_executable_path_is_searched) {
  // The test binary's folder holds no ad-keeper.
  ASSERT_FALSE(fs::exists(fs::read_symlink("/proc/self/exe").parent_path() / "ad-keeper"));
  test::temp_dir dir;
  fake_keeper(dir, "first/ad-keeper", false); // not executable: passed over
  auto keeper = fake_keeper(dir, "second/ad-keeper");
  auto path = (dir.path() / "first").string() + ":" + (dir.path() / "second").string();
  scoped_env unset("AD_KEEPER", nullptr);
  scoped_env env("PATH", path.c_str());
  auto found = find_keeper_binary();
  ASSERT_TRUE(found.is_ok()) << found.error().message();
  EXPECT_EQ(*found, keeper);
}

TEST(find_keeper_binary, none_anywhere_is_an_error_with_the_fix) {
  test::temp_dir dir;
  scoped_env unset("AD_KEEPER", nullptr);
  scoped_env env("PATH", dir.path().c_str());
  auto found = find_keeper_binary();
  ASSERT_FALSE(found.is_ok());
  const auto& m = found.error().message();
  EXPECT_NE(m.find("nor on PATH"), std::string::npos) << m;
  EXPECT_NE(m.find("set AD_KEEPER"), std::string::npos) << m;
}

} // namespace
} // namespace ad::runtime
