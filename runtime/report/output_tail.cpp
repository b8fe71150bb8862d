#include "runtime/report/output_tail.hpp"

#include <filesystem>
#include <fstream>

#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/report/event_render.hpp"

namespace ad::runtime {
namespace {

// A locator.json is a few kilobytes; anything far larger is not one.
constexpr size_t max_locator_bytes = 1u << 20;

} // namespace

std::string last_rendered_line(const std::string& locator, size_t max_bytes) {
  if (locator.empty())
    return "";
  auto path = std::filesystem::path(locator).parent_path() / "normalized-output.log";
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return "";
  in.seekg(0, std::ios::end);
  auto size = static_cast<size_t>(std::max<std::streamoff>(in.tellg(), 0));
  size_t from = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(from));
  std::string tail(size - from, '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  tail.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  // Complete lines only: the last one may still be written.
  auto end = tail.rfind('\n');
  while (end != std::string::npos) {
    auto start = end == 0 ? std::string::npos : tail.rfind('\n', end - 1);
    size_t begin = start == std::string::npos ? 0 : start + 1;
    if (start == std::string::npos && from > 0)
      return "";  // a line longer than the window: not shown in part
    auto line = one_line(tail.substr(begin, end - begin));
    if (!line.empty())
      return line;
    if (start == std::string::npos)
      break;
    end = start;
  }
  return "";
}

std::string find_attempt_folder(const std::string& runs_dir, const std::string& identity) {
  if (runs_dir.empty() || identity.empty())
    return "";
  std::string suffix = "__" + identity;
  std::string newest;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(runs_dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    auto name = it->path().filename().string();
    if (name.size() > suffix.size() && name.ends_with(suffix) && name > newest)
      newest = name;  // the stamp leads: the newest sorts last
  }
  return newest.empty() ? "" : (std::filesystem::path(runs_dir) / newest).string();
}

token_usage locator_usage(const std::string& locator) {
  if (locator.empty())
    return {};
  auto text = read_file(locator, max_locator_bytes);
  if (!text)
    return {};
  auto j = parse_json(*text, locator);
  if (!j || !j->is_object() || !j->contains("usage"))
    return {};
  auto usage = usage_from_json((*j)["usage"]);
  return usage ? *usage : token_usage{};
}

attempt_live read_attempt_live(const std::string& locator) {
  return {last_rendered_line(locator), locator_usage(locator)};
}

std::string attempt_output_reader::locator_of(const std::string& identity,
                                              const std::string& locator) {
  if (!locator.empty())
    return locator;
  if (locators_.size() > 4096)  // attempts long gone
    locators_.clear();
  auto& known = locators_[identity];
  if (known.empty())
    if (auto folder = find_attempt_folder(runs_dir_, identity); !folder.empty())
      known = (std::filesystem::path(folder) / "locator.json").string();
  return known;
}

std::string attempt_output_reader::operator()(const std::string& identity,
                                              const std::string& locator) {
  return last_rendered_line(locator_of(identity, locator));
}

attempt_live attempt_output_reader::live(const std::string& identity, const std::string& locator) {
  return read_attempt_live(locator_of(identity, locator));
}

} // namespace ad::runtime
