#include "runtime/core/user_regex.hpp"

#include <re2/re2.h>

#include <cstdio>
#include <cstdlib>

namespace ad::runtime {

result<user_regex> user_regex::compile(std::string_view source) {
  if (source.size() > user_regex_max_chars)
    return status::invalid_argument("the expression is " + std::to_string(source.size())
                                    + " characters long, more than the limit of "
                                    + std::to_string(user_regex_max_chars));
  RE2::Options options;
  options.set_case_sensitive(false);
  options.set_log_errors(false);
  options.set_max_mem(user_regex_max_memory);
  auto re = std::make_shared<const RE2>(re2::StringPiece(source.data(), source.size()), options);
  if (!re->ok()) {
    std::string why = re->error();
    if (re->error_code() == RE2::ErrorPatternTooLarge)
      why = "the compiled expression needs more than "
            + std::to_string(user_regex_max_memory / 1024) + " KiB";
    return status::invalid_argument(why);
  }
  user_regex out;
  out.re_ = std::move(re);
  out.source_ = std::string(source);
  return out;
}

bool user_regex::search(std::string_view text) const {
  return re_ != nullptr
         && RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

bool user_regex::for_each_match(
  std::string_view text, const std::function<void(std::optional<std::string_view>)>& on_match,
  std::size_t max_matches) const {
  if (re_ == nullptr)
    return false;
  re2::StringPiece input(text.data(), text.size());
  re2::StringPiece groups[2];
  int wanted = re_->NumberOfCapturingGroups() >= 1 ? 2 : 1;
  bool any = false;
  std::size_t pos = 0, found = 0;
  while (pos <= text.size() && found < max_matches &&
         re_->Match(input, pos, text.size(), RE2::UNANCHORED, groups, wanted)) {
    any = true;
    ++found;
    std::optional<std::string_view> group;
    if (wanted == 2 && groups[1].data() != nullptr)
      group = std::string_view(groups[1].data(), groups[1].size());
    on_match(group);
    auto start = static_cast<std::size_t>(groups[0].data() - text.data());
    // An empty match moves on by one byte, so the loop always ends.
    pos = groups[0].empty() ? start + 1 : start + groups[0].size();
  }
  return any;
}

std::vector<std::optional<std::string_view>> user_regex::match(std::string_view text,
                                                               std::size_t from,
                                                               anchor where) const {
  std::vector<std::optional<std::string_view>> out;
  if (re_ == nullptr || from > text.size())
    return out;
  int n = 1 + re_->NumberOfCapturingGroups();
  std::vector<re2::StringPiece> groups(static_cast<std::size_t>(n));
  if (!re_->Match(re2::StringPiece(text.data(), text.size()), from, text.size(),
                  where == anchor::at_start ? RE2::ANCHOR_START : RE2::UNANCHORED, groups.data(), n))
    return out;
  out.reserve(groups.size());
  for (const auto& g : groups)
    out.push_back(g.data() == nullptr ? std::nullopt
                                      : std::optional<std::string_view>(std::string_view(g.data(), g.size())));
  return out;
}

user_regex fixed_regex(std::string_view source) {
  auto re = user_regex::compile(source);
  if (!re) {
    std::fprintf(stderr, "fixed_regex: %s\n", re.error().message().c_str());
    std::abort();
  }
  return std::move(*re);
}

} // namespace ad::runtime
