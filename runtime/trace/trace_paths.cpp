#include "runtime/trace/trace_paths.hpp"

#include <algorithm>

namespace ad::runtime {

namespace {

std::string replace_all(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    auto hit = text.find(from, pos);
    if (hit == std::string_view::npos)
      break;
    out.append(text.substr(pos, hit - pos));
    out.append(to);
    pos = hit + from.size();
  }
  out.append(text.substr(pos));
  return out;
}

template <class F>
json map_strings(const json& value, const F& f) {
  if (value.is_string())
    return f(value.get_ref<const std::string&>());
  if (value.is_array()) {
    json out = json::array();
    for (const auto& v : value)
      out.push_back(map_strings(v, f));
    return out;
  }
  if (value.is_object()) {
    json out = json::object();
    for (auto it = value.begin(); it != value.end(); ++it)
      out[f(it.key())] = map_strings(it.value(), f);
    return out;
  }
  return value;
}

} // namespace

void trace_paths::add_root(std::string root, std::string token) {
  while (root.size() > 1 && root.back() == '/')
    root.pop_back();
  if (root.size() <= 1) // "" or "/": replacing it would rewrite every path
    return;
  roots_.emplace_back("${" + token + "}", std::move(root));
  std::stable_sort(roots_.begin(), roots_.end(), [](const auto& a, const auto& b) {
    return a.second.size() > b.second.size();
  });
}

std::string trace_paths::relativize_text(std::string_view text) const {
  std::string out(text);
  for (const auto& [token, root] : roots_)
    if (out.find(root) != std::string::npos)
      out = replace_all(out, root, token);
  return out;
}

std::string trace_paths::expand_text(std::string_view text) const {
  std::string out(text);
  for (const auto& [token, root] : roots_)
    if (out.find(token) != std::string::npos)
      out = replace_all(out, token, root);
  return out;
}

json trace_paths::relativize(const json& value) const {
  return map_strings(value, [this](const std::string& s) { return relativize_text(s); });
}

json trace_paths::expand(const json& value) const {
  return map_strings(value, [this](const std::string& s) { return expand_text(s); });
}

} // namespace ad::runtime
