#include "tools/cli/number_option.hpp"

#include <charconv>
#include <regex>

namespace ad::cli {

std::string number_option_error(const std::string& name, const std::string& text, int64_t min,
                                int64_t max, int64_t& value) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+')
    ++first;  // "+4" is 4
  auto [end, ec] = std::from_chars(first, last, value);
  bool whole = !text.empty() && ec != std::errc::invalid_argument && end == last;
  if (!whole)
    return name + " must be a whole number, got \"" + text + "\"";
  bool below = ec == std::errc::result_out_of_range ? text.front() == '-' : value < min;
  bool above = ec == std::errc::result_out_of_range ? text.front() != '-' : value > max;
  if (below)
    return name + " must be " + std::to_string(min) + " or more, got " + text;
  if (above)
    return name + " must be at most " + std::to_string(max) + ", got " + text;
  return "";
}

std::string plain_failure_message(const CLI::App* app, const CLI::Error& error) {
  static const std::regex missing(R"(^(-[^:]+): \d+ required \S+ missing$)");
  std::smatch m;
  std::string what = error.what();
  if (error.get_name() == "ArgumentMismatch" && std::regex_match(what, m, missing))
    return m[1].str() + " needs a value\nRun with --help for more information.\n";
  return CLI::FailureMessage::simple(app, error);
}

} // namespace ad::cli
