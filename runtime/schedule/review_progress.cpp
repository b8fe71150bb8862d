#include "runtime/schedule/review_progress.hpp"

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>

#include "runtime/core/hash.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view x) {
  return s.size() >= x.size() && s.substr(s.size() - x.size()) == x;
}

bool counts_for_progress(std::string_view name) {
  return (starts_with(name, "PLAN-") && ends_with(name, ".md")) ||
         (starts_with(name, "CODE_REVIEW-") && ends_with(name, ".md")) ||
         name == "USER_REVIEW.md" || ends_with(name, ".log");
}

void append_entry(std::string& out, char section, const progress_entry& e) {
  out += section;
  out += '|';
  out += std::to_string(e.path.size());
  out += ':';
  out += e.path;
  out += '|';
  out += std::to_string(static_cast<int>(e.kind));
  out += '|';
  out += std::to_string(e.size);
  out += '|';
  out += std::to_string(e.mtime_ns);
  out += '|';
  out += e.sha256;
  out += '\n';
}

std::vector<progress_entry> sorted_by_path(std::vector<progress_entry> v) {
  std::sort(v.begin(), v.end(),
            [](const progress_entry& a, const progress_entry& b) { return a.path < b.path; });
  return v;
}

result<progress_entry> observe_entry(const fs::path& p, std::string label) {
  progress_entry e;
  e.path = std::move(label);
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      e.kind = progress_entry_kind::missing;
      return e;
    }
    return status::from_errno("stat " + p.string(), errno);
  }
  if (!S_ISREG(st.st_mode)) {
    e.kind = progress_entry_kind::other;
    return e;
  }
  auto digest = sha256_file_hex(p);
  if (!digest)
    return digest.error();
  e.kind = progress_entry_kind::file;
  e.size = static_cast<uint64_t>(st.st_size);
  e.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  e.sha256 = std::move(*digest);
  return e;
}

} // namespace

std::string progress_signature(const progress_snapshot& snap) {
  if (snap.folder_missing)
    return "moved";
  std::string text;
  for (const auto& e : sorted_by_path(snap.task_files))
    append_entry(text, 'T', e);
  for (const auto& e : sorted_by_path(snap.write_set))
    append_entry(text, 'W', e);
  return sha256_hex(text);
}

result<progress_snapshot> snapshot_review_progress(const fs::path& task_dir,
                                                   const std::vector<std::string>& write_set) {
  progress_snapshot snap;
  std::error_code ec;
  if (!fs::is_directory(task_dir, ec)) {
    snap.folder_missing = true;
    return snap;
  }
  std::vector<fs::path> names;
  for (fs::directory_iterator it(task_dir, ec), end; it != end; it.increment(ec)) {
    if (ec)
      break;
    auto name = it->path().filename().string();
    std::error_code kind_ec;
    if (counts_for_progress(name) && it->is_regular_file(kind_ec))
      names.push_back(it->path());
  }
  if (ec)
    return status::from_errno("listing " + task_dir.string(), ec.value());
  std::sort(names.begin(), names.end());
  for (const auto& p : names) {
    auto e = observe_entry(p, p.filename().string());
    if (!e)
      return e.error();
    snap.task_files.push_back(std::move(*e));
  }
  auto sorted = write_set;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (const auto& raw : sorted) {
    auto e = observe_entry(fs::path(raw), raw);
    if (!e)
      return e.error();
    snap.write_set.push_back(std::move(*e));
  }
  return snap;
}

std::optional<std::string> no_progress_exhausted(int prior_count,
                                                 const no_progress_policy& policy) {
  if (prior_count < policy.limit)
    return std::nullopt;
  return "review no-progress limit already reached: " + std::to_string(prior_count) + "/" +
         std::to_string(policy.limit) + " unchanged reviews";
}

progress_step after_review(int prior_count, const std::string& before_signature,
                           const std::string& after_signature, const no_progress_policy& policy) {
  progress_step step;
  if (before_signature != after_signature) {
    step.action = progress_action::progressed;
    step.count = 0;
    return step;
  }
  step.count = std::max(0, prior_count) + 1;
  auto of = std::to_string(step.count) + "/" + std::to_string(policy.limit);
  if (step.count >= policy.limit) {
    step.action = progress_action::block;
    step.reason = "review made no progress: " + of + " unchanged reviews";
    return step;
  }
  step.action = progress_action::pause;
  step.pause = std::min<millis>(policy.pause_cap, policy.pause_step * step.count);
  step.reason = "review made no progress: " + of + " unchanged reviews, pausing " +
                std::to_string(step.pause / 1000) + " s";
  return step;
}

} // namespace ad::runtime
