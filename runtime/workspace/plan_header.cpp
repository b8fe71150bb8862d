#include "runtime/workspace/plan_header.hpp"

#include <cerrno>
#include <fstream>

#include "runtime/core/hash.hpp"
#include "runtime/workspace/markdown.hpp"

namespace ad::runtime {

namespace {

void skip_spaces(std::string_view& s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
}

// Reads a run of non-space characters.
std::string_view take_token(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && !is_space(s[n]))
    ++n;
  auto token = s.substr(0, n);
  s.remove_prefix(n);
  return token;
}

std::optional<plan_header> parse_at(std::string_view s) {
  // s starts right after "<!--".
  plan_header out;
  skip_spaces(s);
  if (!s.starts_with("task="))
    return std::nullopt;
  s.remove_prefix(5);
  auto task = take_token(s);
  if (task.empty() || s.empty())
    return std::nullopt;
  skip_spaces(s);
  if (!s.starts_with("plan="))
    return std::nullopt;
  s.remove_prefix(5);
  auto plan = take_token(s);
  if (plan.empty() || s.empty())
    return std::nullopt;
  for (char c : plan)
    if (c < '0' || c > '9')
      return std::nullopt;
  skip_spaces(s);
  if (!s.starts_with("tag="))
    return std::nullopt;
  s.remove_prefix(4);
  auto tag = take_token(s);
  if (tag.ends_with("-->")) {
    tag.remove_suffix(3);
  } else {
    skip_spaces(s);
    if (!s.starts_with("-->"))
      return std::nullopt;
  }
  if (tag.empty())
    return std::nullopt;
  out.task = std::string(task);
  out.plan = std::string(plan);
  out.tag = std::string(tag);
  return out;
}

} // namespace

std::string plan_header::work_unit_id() const {
  return task + "::plan-" + plan + "::tag-" + tag;
}

std::optional<plan_header> parse_plan_header(std::string_view text) {
  std::size_t at = text.find("<!--");
  while (at != std::string_view::npos && at < plan_header_window) {
    // The whole header must lie in the window, like a search over its prefix.
    auto window = text.substr(0, plan_header_window);
    if (auto header = parse_at(window.substr(at + 4)))
      return header;
    at = text.find("<!--", at + 1);
  }
  return std::nullopt;
}

result<std::optional<plan_header>> read_plan_header_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return status::not_found("not a readable file: " + path.string());
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return status::from_errno("cannot open " + path.string(), errno);
  std::string head(plan_header_window, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  if (in.bad())
    return status::io_error("cannot read " + path.string());
  head.resize(static_cast<std::size_t>(in.gcount()));
  return parse_plan_header(head);
}

namespace {

std::string header_key(const plan_header& h) {
  std::string joined = h.task;
  joined.push_back('\0');
  joined += h.plan;
  joined.push_back('\0');
  joined += h.tag;
  return "meta:" + sha256_hex(joined);
}

} // namespace

std::string plan_identity_key(const std::filesystem::path& path) {
  auto header = read_plan_header_file(path);
  if (!header.is_ok())
    return "none";
  if (header->has_value())
    return header_key(**header);
  auto digest = sha256_file_hex(path);
  return digest.is_ok() ? *digest : "none";
}

std::string plan_identity_key_of(const std::optional<plan_header>& header, std::string_view text) {
  return header ? header_key(*header) : sha256_hex(text);
}

} // namespace ad::runtime
