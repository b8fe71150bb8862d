// The policy's validation error collector (policy_checker.hpp).
#include "runtime/policy/policy_checker.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/core/user_regex.hpp"

namespace ad::runtime {

namespace {

std::string describe(const json* v) {
  if (v == nullptr)
    return "nothing (the key is missing)";
  std::string text = dump_json(*v);
  if (text.size() > 80)
    text = text.substr(0, 77) + "...";
  return std::string(v->type_name()) + " " + text;
}

} // namespace

std::string escape_pointer_token(std::string_view key) {
  constexpr std::size_t shown = 80;
  std::string out;
  for (char c : key.substr(0, shown)) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  if (key.size() > shown)
    out += "...";
  return out;
}

void policy_checker::fail(const std::string& pointer, std::string_view expected, const json* found) {
  errors_.push_back(source_ + ": " + (pointer.empty() ? "/" : pointer) + ": expected " +
                    std::string(expected) + ", found " + describe(found));
}
void policy_checker::fail_text(const std::string& pointer, std::string_view expected, std::string found) {
  errors_.push_back(source_ + ": " + (pointer.empty() ? "/" : pointer) + ": expected " +
                    std::string(expected) + ", found " + found);
}

bool policy_checker::object(const json& v, const std::string& ptr, std::initializer_list<std::string_view> allowed,
            std::initializer_list<std::string_view> required) {
  if (!v.is_object()) {
    fail(ptr, "an object", &v);
    return false;
  }
  bool ok = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      std::string keys;
      for (auto k : allowed)
        keys += (keys.empty() ? "" : ", ") + std::string(k);
      fail(ptr + "/" + escape_pointer_token(it.key()), "no unknown key (allowed: " + keys + ")",
           &it.value());
      ok = false;
    }
  }
  for (auto k : required)
    if (!v.contains(k)) {
      fail(ptr + "/" + std::string(k), "a value (required key)", nullptr);
      ok = false;
    }
  return ok;
}

bool policy_checker::string(const json& v, const std::string& ptr, std::string& out, bool allow_empty,
                            std::size_t max_chars) {
  if (!v.is_string() || (!allow_empty && v.get_ref<const std::string&>().empty())) {
    fail(ptr, allow_empty ? "a string" : "a non-empty string", &v);
    return false;
  }
  if (!short_enough(v.get_ref<const std::string&>(), ptr, max_chars))
    return false;
  out = v.get<std::string>();
  return true;
}

bool policy_checker::short_enough(std::string_view text, const std::string& ptr,
                                  std::size_t max_chars) {
  if (text.size() <= max_chars)
    return true;
  fail_text(ptr, "at most " + std::to_string(max_chars) + " characters",
            "a string of " + std::to_string(text.size()) + " characters");
  return false;
}

bool policy_checker::integer(const json& v, const std::string& ptr, int& out, int lo, int hi) {
  if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi) {
    fail(ptr, "an integer in " + std::to_string(lo) + ".." + std::to_string(hi), &v);
    return false;
  }
  out = static_cast<int>(v.get<int64_t>());
  return true;
}

bool policy_checker::number(const json& v, const std::string& ptr, double& out, double lo, std::string_view what) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo) {
    fail(ptr, what, &v);
    return false;
  }
  out = v.get<double>();
  return true;
}

bool policy_checker::boolean(const json& v, const std::string& ptr, bool& out) {
  if (!v.is_boolean()) {
    fail(ptr, "true or false", &v);
    return false;
  }
  out = v.get<bool>();
  return true;
}

bool policy_checker::strings(const json& v, const std::string& ptr, std::vector<std::string>& out,
             bool allow_empty_list, std::size_t max_chars) {
  if (!v.is_array() || (!allow_empty_list && v.empty())) {
    fail(ptr, allow_empty_list ? "an array of strings" : "a non-empty array of strings", &v);
    return false;
  }
  out.clear();
  bool ok = true;
  for (size_t i = 0; i < v.size(); ++i) {
    std::string s;
    if (string(v[i], ptr + "/" + std::to_string(i), s, false, max_chars))
      out.push_back(s);
    else
      ok = false;
  }
  return ok;
}

bool policy_checker::regexes(const std::vector<std::string>& list, const std::string& ptr) {
  bool ok = true;
  for (size_t i = 0; i < list.size(); ++i) {
    auto re = user_regex::compile(list[i]);
    if (!re) {
      std::string shown = list[i].size() > 80 ? list[i].substr(0, 80) + "..." : list[i];
      fail_text(ptr + "/" + std::to_string(i),
                "a valid regular expression (RE2 syntax, at most "
                  + std::to_string(user_regex_max_chars) + " characters)",
                "\"" + shown + "\" (" + re.error().message() + ")");
      ok = false;
    }
  }
  return ok;
}

status policy_checker::result() const {
  if (errors_.empty())
    return status::ok();
  std::string msg;
  for (const auto& e : errors_)
    msg += (msg.empty() ? "" : "\n") + e;
  return status::invalid_argument(msg);
}

} // namespace ad::runtime
