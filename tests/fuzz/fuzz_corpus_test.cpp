// Runs every fuzz target over its seeds (tests/fuzz/seeds.txt) and its kept
// inputs (tests/fuzz/corpus/<target>/) in the ordinary test build, so an
// input that once broke a target stays fixed under every build and the
// sanitizers, without libFuzzer. A broken invariant aborts this test.
#include <fnmatch.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "runtime/core/files.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path source_dir = AD_SOURCE_DIR;

struct seed_source {
  std::string target, first_line, folder, pattern;
};

std::vector<seed_source> read_seed_sources() {
  std::vector<seed_source> out;
  std::ifstream in(source_dir / "tests/fuzz/seeds.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream words(line);
    seed_source s;
    words >> s.target >> s.first_line >> s.folder >> s.pattern;
    if (!s.pattern.empty())
      out.push_back(s);
  }
  return out;
}

// The inputs of one target: its seeds, then its kept inputs, by file.
std::vector<std::pair<std::string, std::string>> inputs_of(const std::string& target) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : read_seed_sources()) {
    if (s.target != target)
      continue;
    for (const auto& e : fs::recursive_directory_iterator(source_dir / s.folder)) {
      if (!e.is_regular_file()
          || ::fnmatch(s.pattern.c_str(), e.path().filename().c_str(), 0) != 0)
        continue;
      auto text = ad::runtime::read_file(e.path(), 64u << 20);
      if (!text)
        continue;
      out.emplace_back(e.path().string(), (s.first_line == "-" ? "" : s.first_line + "\n") + *text);
    }
  }
  fs::path kept = source_dir / "tests/fuzz/corpus" / target;
  std::error_code ec;
  if (fs::is_directory(kept, ec))
    for (const auto& e : fs::directory_iterator(kept))
      if (auto text = ad::runtime::read_file(e.path(), 64u << 20))
        out.emplace_back(e.path().string(), *text);
  return out;
}

TEST(fuzz_corpus, every_seed_source_names_a_target_and_finds_files) {
  const auto& targets = ad::fuzz::registry();
  for (const auto& s : read_seed_sources()) {
    EXPECT_TRUE(targets.count(s.target)) << "seeds.txt names no target " << s.target;
    EXPECT_TRUE(fs::is_directory(source_dir / s.folder)) << s.folder;
  }
  EXPECT_GE(targets.size(), 8u);
}

class fuzz_corpus_target : public ::testing::TestWithParam<std::string> {};

TEST_P(fuzz_corpus_target, runs_every_seed_and_kept_input) {
  auto fn = ad::fuzz::registry().at(GetParam());
  auto inputs = inputs_of(GetParam());
  ASSERT_FALSE(inputs.empty()) << "no inputs for " << GetParam();
  for (const auto& [name, bytes] : inputs) {
    SCOPED_TRACE(name);
    std::fprintf(stderr, "%s: %s\n", GetParam().c_str(), name.c_str());
    EXPECT_EQ(fn(bytes), 0);
  }
  // Every prefix of a seed too: inputs cut short are what crashes leave.
  for (const auto& [name, bytes] : inputs)
    for (size_t cut : {bytes.size() / 3, bytes.size() / 2, bytes.size() - bytes.size() / 7})
      EXPECT_EQ(fn(std::string_view(bytes).substr(0, cut)), 0) << name << " cut at " << cut;
}

// A target that makes files for itself (plan: a small workspace) removes
// them when its process exits: each run of the corpus starts its own.
TEST(fuzz_corpus, a_target_run_leaves_nothing_in_the_temporary_folder) {
  ad::test::temp_dir tmp;
  for (const auto& [name, fn] : ad::fuzz::registry()) {
    SCOPED_TRACE(name);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // A fresh process: this test binary's own statics are not shared.
      std::string filter = "--gtest_filter=all/fuzz_corpus_target.runs_every_seed_and_kept_input/"
                           + name;
      ::setenv("TMPDIR", tmp.path().c_str(), 1);
      ::execl("/proc/self/exe", "fuzz_corpus_tests", filter.c_str(), "--gtest_brief=1",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(tmp.path()))
      left.push_back(e.path().filename().string());
    EXPECT_TRUE(left.empty()) << name << " left " << left.front();
  }
}

std::vector<std::string> target_names() {
  std::vector<std::string> out;
  for (const auto& [name, fn] : ad::fuzz::registry())
    out.push_back(name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(all, fuzz_corpus_target, ::testing::ValuesIn(target_names()),
                         [](const auto& info) { return info.param; });

} // namespace
