#include "runtime/run/stage_steps.hpp"

#include <optional>
#include <stdexcept>

#include "runtime/core/exception_text.hpp"

namespace ad::runtime {

namespace {

std::optional<review_verdict> verdict_from_label(const std::string& label) {
  for (auto v : {review_verdict::pass, review_verdict::warn, review_verdict::fail})
    if (verdict_label(v) == label)
      return v;
  if (label == verdict_label(std::nullopt))
    return std::nullopt;
  throw std::invalid_argument("unknown verdict " + label);
}

json folder_body(const review_folder& f) {
  json sources = json::array();
  for (const auto& src : f.sources)
    sources.push_back(json{{"path", src.path},
                           {"sha256", src.sha256},
                           {"mtime_ns", src.mtime_ns},
                           {"kind", src.kind == review_source_kind::review_log ? "log" : "file"},
                           {"verdict", verdict_label(src.verdict)}});
  return json{{"path", f.path},
              {"place", f.place == review_folder_place::active ? "active" : "archive"},
              {"user_review", f.has_user_review},
              {"complete_log", f.has_complete_log},
              {"sources", sources}};
}

review_folder folder_from_json(const json& j) {
  review_folder f;
  f.path = json_member<std::string>(j, "path");
  auto place = json_member<std::string>(j, "place");
  if (place != "active" && place != "archive")
    throw std::invalid_argument("unknown folder place \"" + place + "\"");
  f.place = place == "active" ? review_folder_place::active : review_folder_place::archive;
  f.has_user_review = json_member<bool>(j, "user_review");
  f.has_complete_log = json_member<bool>(j, "complete_log");
  for (const auto& sj : json_array_member(j, "sources")) {
    review_source src;
    src.path = json_member<std::string>(sj, "path");
    src.sha256 = json_member<std::string>(sj, "sha256");
    src.mtime_ns = json_member<int64_t>(sj, "mtime_ns");
    auto kind = json_member<std::string>(sj, "kind");
    if (kind != "log" && kind != "file")
      throw std::invalid_argument("unknown source kind \"" + kind + "\"");
    src.kind = kind == "log" ? review_source_kind::review_log : review_source_kind::review_file;
    src.verdict = verdict_from_label(json_member<std::string>(sj, "verdict"));
    f.sources.push_back(std::move(src));
  }
  return f;
}

} // namespace

json review_reading_body(const review_reading& r) {
  json folders = json::array();
  for (const auto& f : r.after.folders)
    folders.push_back(folder_body(f));
  json seen = json::array();
  for (const auto& s : r.before)
    seen.push_back(json::array({s.path, s.sha256}));
  return json{{"observed", r.observed},
              {"folders", folders},
              {"seen_before", seen},
              {"signature_before", r.signature_before},
              {"signature_after", r.signature_after}};
}

result<review_reading> review_reading_from_json(const json& j) {
  try {
    review_reading r;
    r.observed = json_member<bool>(j, "observed");
    for (const auto& f : json_array_member(j, "folders"))
      r.after.folders.push_back(folder_from_json(f));
    for (const auto& s : json_array_member(j, "seen_before")) {
      if (!s.is_array() || s.size() != 2 || !s[0].is_string() || !s[1].is_string())
        throw std::invalid_argument("\"seen_before\" entries must be [path, sha256]");
      r.before.insert(seen_source{s[0].get<std::string>(), s[1].get<std::string>()});
    }
    r.signature_before = json_member<std::string>(j, "signature_before");
    r.signature_after = json_member<std::string>(j, "signature_after");
    return r;
  } catch (const std::exception& e) {
    return status::invalid_argument("review reading: " + exception_text(e));
  }
}

} // namespace ad::runtime
