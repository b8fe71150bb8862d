// The command line's outline (tools/cli/cli_outline): the commands the man
// pages are made for, and the completion script run through bash the way
// bash runs it on <TAB> (COMP_WORDS, COMP_CWORD). The package tests check the
// same against the real agent-dispatch and its --help; these cover what that
// program does not use today (choices, option groups, hidden commands).
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "tools/cli/cli_outline.hpp"

namespace {

namespace fs = std::filesystem;

// A small app in the shape of agent-dispatch: two levels of sub-commands,
// flags, options with text, numbers and choices, a positional, an option
// group, and hidden things.
struct sample_app {
  CLI::App app{"tool: does things"};
  std::string text;
  int number = 0;
  bool flag = false;
  std::string file;

  sample_app() {
    app.name("tool");
    app.set_version_flag("--version", "1.0");
    app.add_flag("--secret-root", flag, "hidden")->group("");
    auto* run = app.add_subcommand("run", "Run the things");
    run->add_option("--workspace", text, "a folder");
    run->add_option("--max", number, "a number");
    run->add_option("--count", number, "a number shown as N")->type_name("N");
    run->add_option("--shape", text, "a shape")->check(CLI::IsMember({"chain", "fanout"}));
    run->add_flag("-v,--verbose", flag, "more");
    run->add_flag("--hidden-flag", flag, "not shown")->group("");
    auto* group = run->add_option_group("tls", "the certificates");
    group->add_option("--tls-cert", text, "a certificate");
    auto* policy = app.add_subcommand("policy", "Policy things");
    policy->add_subcommand("check", "Check a policy")->add_option("FILE", file, "the file");
    policy->add_subcommand("show", "Show the policy");
    app.add_subcommand("internal", "not shown")->group("");
  }
};

class completion : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cli_outline_test." + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "files" / "a-folder");
    std::ofstream(dir_ / "files" / "a-file.json") << "{}";
    std::ofstream(dir_ / "complete.sh") << ad::cli::bash_completion(sample_.app)
                                        << "COMP_WORDS=(\"$@\")\n"
                                           "COMP_CWORD=$(($# - 1))\n"
                                           "_tool\n"
                                           "if ((${#COMPREPLY[@]})); then\n"
                                           "  printf '%s\\n' \"${COMPREPLY[@]}\" | sort\n"
                                           "fi\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // What the completion offers for the last of words (after "tool").
  std::string offers(const std::vector<std::string>& words) {
    std::string cmd = "cd '" + (dir_ / "files").string() + "' && LC_ALL=C bash '" +
                      (dir_ / "complete.sh").string() + "' tool";
    for (const auto& w : words)
      cmd += " '" + w + "'";
    std::string out;
    FILE* p = ::popen(cmd.c_str(), "r");
    EXPECT_NE(p, nullptr);
    std::array<char, 512> buf{};
    while (p && std::fgets(buf.data(), buf.size(), p))
      out += buf.data();
    EXPECT_EQ(p ? ::pclose(p) : -1, 0) << cmd;
    return out;
  }

  sample_app sample_;
  fs::path dir_;
};

TEST(cli_outline, lists_every_shown_command_depth_first_with_its_description) {
  sample_app s;
  auto commands = ad::cli::list_commands(s.app);
  std::vector<std::string> paths;
  for (const auto& c : commands)
    paths.push_back(c.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"run", "policy", "policy check", "policy show"}));
  EXPECT_EQ(commands[2].description, "Check a policy");
}

TEST(cli_outline, the_flags_print_the_outline_and_end_the_parse_before_a_command_is_required) {
  sample_app s;
  s.app.require_subcommand(1);
  ad::cli::add_outline_flags(s.app);
  testing::internal::CaptureStdout();
  EXPECT_THROW(s.app.parse(std::vector<std::string>{"--list-commands"}), CLI::Success);
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "run\tRun the things\npolicy\tPolicy things\npolicy check\tCheck a policy\n"
            "policy show\tShow the policy\n");
  // Neither flag is in the help, nor offered by the completion.
  EXPECT_EQ(s.app.help().find("--list-commands"), std::string::npos);
  EXPECT_EQ(ad::cli::bash_completion(s.app).find("--list-commands"), std::string::npos);
}

TEST_F(completion, offers_the_shown_sub_commands_at_each_level) {
  EXPECT_EQ(offers({""}), "policy\nrun\n");
  EXPECT_EQ(offers({"p"}), "policy\n");
  EXPECT_EQ(offers({"policy", ""}), "check\nshow\n");
}

TEST_F(completion, offers_the_options_of_the_command_the_words_reached) {
  EXPECT_EQ(offers({"-"}), "--help\n--version\n-h\n");
  EXPECT_EQ(offers({"run", "--"}),
            "--count\n--help\n--max\n--shape\n--tls-cert\n--verbose\n--workspace\n");
  EXPECT_EQ(offers({"policy", "show", "-"}), "--help\n-h\n");
}

TEST_F(completion, completes_values_by_the_type_of_the_option) {
  EXPECT_EQ(offers({"run", "--workspace", "a-"}), "a-file.json\na-folder\n");
  EXPECT_EQ(offers({"run", "--workspace", "=", "a-f"}), "a-file.json\na-folder\n");
  EXPECT_EQ(offers({"run", "--max", ""}), "");
  EXPECT_EQ(offers({"run", "--count", ""}), "");
  EXPECT_EQ(offers({"run", "--shape", ""}), "chain\nfanout\n");
  EXPECT_EQ(offers({"run", "--tls-cert", "a-fi"}), "a-file.json\n");
}

TEST_F(completion, a_flag_takes_no_value_and_an_option_takes_one) {
  EXPECT_EQ(offers({"run", "-v", "--ve"}), "--verbose\n");
  // "policy" here is --workspace's value, not the sub-command.
  EXPECT_EQ(offers({"run", "--workspace", "policy", "--sh"}), "--shape\n");
}

TEST_F(completion, a_positional_completes_file_names) {
  EXPECT_EQ(offers({"policy", "check", "a-"}), "a-file.json\na-folder\n");
  EXPECT_EQ(offers({"policy", "show", "a-"}), "");
}

} // namespace
