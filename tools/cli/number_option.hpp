#pragma once
// Whole-number command-line options with errors in plain words: the value
// is read as a whole number (no sign tricks, no fraction, no trailing text)
// and held to its range, and a bad value stops the parse with one sentence
// naming the option, what it must be and what was given:
//   --max-parallel must be 0 or more, got -1
//   --slots must be a whole number, got "four"
// The error is a CLI::ValidationError carrying exactly that sentence, which
// main() prints with the command's --help hint.

#include <cstdint>
#include <limits>
#include <string>

#include <CLI/CLI.hpp>

namespace ad::cli {

// The sentence for `text` given to option `name` whose value must lie in
// [min, max]; "" when the value is good (and then `value` holds it).
std::string number_option_error(const std::string& name, const std::string& text, int64_t min,
                                int64_t max, int64_t& value);

// main()'s failure message: CLI11's own, except that an option given
// without its value says so in words ("--max-parallel needs a value").
std::string plain_failure_message(const CLI::App* app, const CLI::Error& error);

// Adds option `name` (e.g. "--max-parallel") storing into `target`, checked
// against [min, max] (max defaults to the type's largest value).
template <class Int>
CLI::Option* add_number_option(CLI::App& cmd, const std::string& name, Int& target,
                               const std::string& description, Int min,
                               Int max = std::numeric_limits<Int>::max()) {
  auto* option = cmd.add_option_function<std::string>(
    name,
    [&target, name, min, max](const std::string& text) {
      int64_t value = 0;
      auto error = number_option_error(name, text, min, max, value);
      if (!error.empty())
        throw CLI::ValidationError(error);
      target = static_cast<Int>(value);
    },
    description);
  return option->type_name("N");
}

} // namespace ad::cli
