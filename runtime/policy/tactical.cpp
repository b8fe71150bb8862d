#include "runtime/policy/tactical.hpp"

#include <algorithm>
#include <set>
#include <sys/stat.h>

#include "runtime/core/exception_text.hpp"
#include "runtime/core/hash.hpp"
#include "runtime/core/user_regex.hpp"
#include "runtime/state/model_json.hpp"

namespace ad::runtime {

namespace {

// Lines are cut here: a tactical match names a path near an error, never
// megabytes into a line.
constexpr size_t max_line = 4000;

std::vector<std::string_view> lines_to_scan(const tactical_input& in) {
  std::vector<std::string_view> out;
  if (!in.evidence.empty())
    out.push_back(in.evidence);
  for (auto it = in.diagnostics.rbegin(); it != in.diagnostics.rend(); ++it)
    out.push_back(*it);
  for (auto it = in.stream_tail.rbegin(); it != in.stream_tail.rend(); ++it)
    out.push_back(*it);
  for (auto& l : out)
    if (l.size() > max_line)
      l = l.substr(0, max_line);
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// A captured path without the punctuation a sentence puts around it.
void add_named_path(std::vector<std::string>& out, std::string path) {
  while (!path.empty() && std::string_view("'\"`.,;:)]").find(path.back()) != std::string_view::npos)
    path.pop_back();
  while (!path.empty() && std::string_view("'\"`([").find(path.front()) != std::string_view::npos)
    path.erase(0, 1);
  if (!path.empty() && path.size() <= 4096 && !contains(out, path))
    out.push_back(std::move(path));
}

} // namespace

json to_json(const tactical_event& e) {
  return {{"kind", e.kind},
          {"message", e.message},
          {"pattern_ids", e.pattern_ids},
          {"matched_line", e.matched_line}};
}

result<tactical_event> tactical_event_from_json(const json& j) {
  try {
    return tactical_event{json_member<std::string>(j, "kind"),
                          json_member<std::string>(j, "message"),
                          json_member<std::vector<std::string>>(j, "pattern_ids"),
                          json_member<std::string>(j, "matched_line")};
  } catch (const std::exception& e) {
    return status::invalid_argument(std::string("tactical event: ") + exception_text(e));
  }
}

tactical_analysis analyse_tactical(const std::vector<tactical_pattern>& patterns,
                                   const tactical_input& input) {
  tactical_analysis out;
  out.events.push_back({"attempt_failed", "attempt failed, analysing", {}, ""});
  auto lines = lines_to_scan(input);
  for (const auto& p : patterns) {
    bool hit = false;
    for (const auto& src : p.regexes) {
      auto re = user_regex::compile(src);
      if (!re)
        continue; // parse_policy rejects these; never reached with a valid policy
      for (auto line : lines) {
        bool m = re->for_each_match(line, [&](std::optional<std::string_view> group) {
          if (group)
            add_named_path(out.named_paths, std::string(*group));
        });
        if (m) {
          hit = true;
          if (out.matched_line.empty())
            out.matched_line = std::string(line);
        }
      }
      // Every expression of the pattern runs: each may name other paths.
    }
    if (hit) {
      out.matched_ids.push_back(p.id);
      out.instructions.push_back(p.instruction);
    }
  }
  if (out.matched_ids.empty()) {
    out.events.push_back({"no_match", "no tactical pattern matched", {}, ""});
  } else {
    std::string ids;
    for (const auto& id : out.matched_ids)
      ids += (ids.empty() ? "" : ", ") + id;
    out.events.push_back({"matched", "matched: [" + ids + "]", out.matched_ids, out.matched_line});
  }
  return out;
}

std::vector<std::string> tactical_named_paths(const std::vector<tactical_pattern>& patterns,
                                              const tactical_input& input) {
  return analyse_tactical(patterns, input).named_paths;
}

std::vector<file_snapshot> take_write_set_snapshot(const std::vector<std::string>& paths) {
  std::vector<file_snapshot> out;
  for (const auto& p : paths) {
    file_snapshot s;
    s.path = p;
    struct stat st{};
    if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      s.exists = true;
      s.size = static_cast<uint64_t>(st.st_size);
      s.mtime = static_cast<millis>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
      auto h = sha256_file_hex(p);
      if (h)
        s.hash = *h;
    }
    out.push_back(std::move(s));
  }
  return out;
}

json to_json(const write_set_diff& d) {
  return {{"created", d.created}, {"modified", d.modified}, {"deleted", d.deleted}};
}

write_set_diff diff_write_set(const std::vector<file_snapshot>& before,
                              const std::vector<file_snapshot>& after) {
  write_set_diff d;
  auto find = [](const std::vector<file_snapshot>& v, const std::string& path) -> const file_snapshot* {
    for (const auto& s : v)
      if (s.path == path)
        return &s;
    return nullptr;
  };
  for (const auto& a : after) {
    const file_snapshot* b = find(before, a.path);
    bool existed = b != nullptr && b->exists;
    if (a.exists && !existed)
      d.created.push_back(a.path);
    else if (a.exists && existed &&
             (a.size != b->size || a.hash != b->hash || (a.hash.empty() && a.mtime != b->mtime)))
      d.modified.push_back(a.path);
    else if (!a.exists && existed)
      d.deleted.push_back(a.path);
  }
  for (const auto& b : before)
    if (b.exists && find(after, b.path) == nullptr)
      d.deleted.push_back(b.path);
  return d;
}

json to_json(const intervention_view& v) {
  json files = json::array();
  for (const auto& f : v.existing_files)
    files.push_back({{"path", f.path}, {"created_by", f.created_by}, {"modified_by", f.modified_by}});
  json named = json::array();
  for (const auto& f : v.named_files) {
    json j;
    to_json(j, f);
    named.push_back(std::move(j));
  }
  return {{"pattern_ids", v.pattern_ids},
          {"instruction", v.instruction},
          {"named_files", named},
          {"existing_files", files}};
}

intervention_context build_intervention(const tactical_analysis& analysis,
                                        const std::vector<file_snapshot>& current,
                                        const std::map<std::string, write_set_snapshot>& history,
                                        millis now, const std::vector<named_file>& named) {
  intervention_context ctx;
  for (const auto& written : analysis.named_paths) {
    auto fact = std::find_if(named.begin(), named.end(),
                             [&](const named_file& f) { return f.as_written == written; });
    if (fact != named.end()) {
      ctx.named_files.push_back(*fact);
    } else {
      named_file f;
      f.path = written;
      f.as_written = written;
      ctx.named_files.push_back(std::move(f));
    }
  }
  ctx.pattern_ids = analysis.matched_ids;
  for (const auto& ins : analysis.instructions)
    ctx.instruction += (ctx.instruction.empty() ? "" : "\n") + ins;
  for (const auto& f : current)
    if (f.exists)
      ctx.existing_files.push_back(f.path);
  for (const auto& [attempt, snap] : history) {
    (void)attempt;
    auto d = diff_write_set(snap.before, snap.after);
    for (const auto* list : {&d.created, &d.modified})
      for (const auto& p : *list)
        if (!contains(ctx.touched_files, p))
          ctx.touched_files.push_back(p);
  }
  ctx.created_at = now;
  return ctx;
}

intervention_view view_intervention(const intervention_context& ctx,
                                    const std::map<std::string, write_set_snapshot>& history) {
  intervention_view v;
  v.pattern_ids = ctx.pattern_ids;
  v.instruction = ctx.instruction;
  v.named_files = ctx.named_files;
  for (const auto& path : ctx.existing_files) {
    intervention_file f;
    f.path = path;
    for (const auto& [attempt, snap] : history) {
      auto d = diff_write_set(snap.before, snap.after);
      if (contains(d.created, path))
        f.created_by.push_back(attempt);
      if (contains(d.modified, path))
        f.modified_by.push_back(attempt);
    }
    if (f.created_by.empty() && f.modified_by.empty() && contains(ctx.touched_files, path))
      f.modified_by.push_back("an earlier attempt");
    v.existing_files.push_back(std::move(f));
  }
  return v;
}

std::string render_intervention(const intervention_view& view, std::string_view header) {
  auto join = [](const std::vector<std::string>& ids) {
    std::string s;
    for (const auto& id : ids)
      s += (s.empty() ? "" : ", ") + id;
    return s;
  };
  std::string out(header);
  out += "\n";
  if (!view.instruction.empty())
    out += view.instruction + "\n";
  if (!view.named_files.empty()) {
    out += "Files the error names:\n";
    for (const auto& f : view.named_files) {
      out += "- " + f.path + " (";
      out += f.exists ? "exists now" : "does not exist now";
      if (!f.in_write_set)
        out += "; not in this task's write set";
      if (!f.changed_by.empty())
        out += "; last changed while " + join(f.changed_by) + " ran";
      if (!f.predecessors.empty())
        out += "; in the write set of completed " + join(f.predecessors);
      if (f.exists && f.changed_by.empty() && f.predecessors.empty())
        out += "; not changed by an earlier attempt of this work unit";
      out += ")\n";
    }
  }
  if (view.existing_files.empty()) {
    out += view.named_files.empty() ? "None of the task's files exist yet.\n"
                                    : "None of the task's write-set files exist yet.\n";
    return out;
  }
  out += "Files of this task that exist now:\n";
  for (const auto& f : view.existing_files) {
    out += "- " + f.path;
    std::string notes;
    if (!f.created_by.empty())
      notes += "created by " + join(f.created_by);
    if (!f.modified_by.empty())
      notes += std::string(notes.empty() ? "" : "; ") + "modified by " + join(f.modified_by);
    if (notes.empty())
      notes = "present before this task's attempts";
    out += " (" + notes + ")\n";
  }
  return out;
}

} // namespace ad::runtime
