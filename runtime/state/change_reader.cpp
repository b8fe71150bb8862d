#include "runtime/state/change_reader.hpp"

#include <array>
#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "runtime/core/exception_text.hpp"
#include "runtime/core/json_events.hpp"
#include "runtime/state/task_json.hpp"

namespace ad::runtime {

namespace task_json {

// Every member of any change, by name, read before the change's "op" says
// which it is (the members are written in the order of their names, "op"
// among them). "value" is a boolean in set_task_flag and an integer in
// set_counter and set_attempt_counter, "attempt" an integer in
// record_attempt_started and a string in record_claim_violation: both are
// read as trees, and so are the usage and the claim, whose conversions live
// with their trees'.
struct change_fields {
  std::string op, task, stage, attempt_id, phase, work_unit_id, locator, name, role,
    consume_handoff_id, target, flag, owner, scope, status, archive, path, other_task,
    attribution, action;
  route_decision decision;
  std::vector<file_snapshot> files;
  blocked_info info;
  quota_snapshot quota;
  retry_handoff handoff;
  intervention_context context;
  int64_t plan = 0;
  millis at = 0;
  std::vector<std::string> candidates;
  std::vector<observed_task> tasks;
  json value, attempt, usage, claim;
  uint64_t present = 0;  // the fields met (struct_kind)
};

struct entry_fields {
  std::vector<change_fields> changes;
  json seq;
  uint64_t present = 0;
};

template <>
struct shape<observed_task> {
  static constexpr field fields[] = {
    {"task", true, &bind<&observed_task::task>},
    {"archive_baseline", true, &bind<&observed_task::archive_baseline>},
  };
};

// The most frequent members first: each key is looked up in this order.
template <>
struct shape<change_fields> {
  static constexpr field fields[] = {
    {"op", true, &bind<&change_fields::op>},
    {"task", false, &bind<&change_fields::task>},
    {"decision", false, &bind<&change_fields::decision>},
    {"files", false, &bind<&change_fields::files>},
    {"attempt_id", false, &bind<&change_fields::attempt_id>},
    {"phase", false, &bind<&change_fields::phase>},
    {"stage", false, &bind<&change_fields::stage>},
    {"locator", false, &bind<&change_fields::locator>},
    {"work_unit_id", false, &bind<&change_fields::work_unit_id>},
    {"value", false, &bind<&change_fields::value>},
    {"name", false, &bind<&change_fields::name>},
    {"plan", false, &bind<&change_fields::plan>},
    {"role", false, &bind<&change_fields::role>},
    {"attempt", false, &bind<&change_fields::attempt>},
    {"consume_handoff_id", false, &bind<&change_fields::consume_handoff_id>},
    {"target", false, &bind<&change_fields::target>},
    {"usage", false, &bind<&change_fields::usage>},
    {"flag", false, &bind<&change_fields::flag>},
    {"owner", false, &bind<&change_fields::owner>},
    {"claim", false, &bind<&change_fields::claim>},
    {"info", false, &bind<&change_fields::info>},
    {"quota", false, &bind<&change_fields::quota>},
    {"handoff", false, &bind<&change_fields::handoff>},
    {"context", false, &bind<&change_fields::context>},
    {"scope", false, &bind<&change_fields::scope>},
    {"tasks", false, &bind<&change_fields::tasks>},
    {"status", false, &bind<&change_fields::status>},
    {"archive", false, &bind<&change_fields::archive>},
    {"path", false, &bind<&change_fields::path>},
    {"other_task", false, &bind<&change_fields::other_task>},
    {"attribution", false, &bind<&change_fields::attribution>},
    {"candidates", false, &bind<&change_fields::candidates>},
    {"action", false, &bind<&change_fields::action>},
    {"at", false, &bind<&change_fields::at>},
  };
};

template <>
struct shape<entry_fields> {
  static constexpr field fields[] = {
    {"changes", false, &bind<&entry_fields::changes>},
    {"seq", false, &bind<&entry_fields::seq>},
  };
};

} // namespace task_json

namespace {

using task_json::change_fields;
using task_json::entry_fields;

const char* found_in(const json& j) {
  switch (j.type()) {
  case json::value_t::null: return "null";
  case json::value_t::boolean: return "a boolean";
  case json::value_t::string: return "a string";
  case json::value_t::object: return "an object";
  case json::value_t::array: return "an array";
  default: return "a number";
  }
}

// One change's fields made into the change its "op" names; throws
// std::invalid_argument naming the member ("value: holds 2.5 where an
// integer belongs", "\"task\" is missing").
class change_builder {
public:
  explicit change_builder(change_fields& f) : f_(f) {}

  void need(std::initializer_list<std::string_view> names) const {
    for (auto name : names)
      if (!met(name))
        throw std::invalid_argument("\"" + std::string(name) + "\" is missing");
  }
  bool met(std::string_view name) const {
    const auto& fields = task_json::shape<change_fields>::fields;
    for (std::size_t i = 0; i < std::size(fields); ++i)
      if (fields[i].name == name)
        return f_.present & (uint64_t{1} << i);
    return false;
  }
  static int64_t integer(const json& j, const char* name) {
    if (j.is_number_float())
      throw std::invalid_argument(std::string(name) + ": holds " + j.dump()
                                  + " where an integer belongs");
    if (!j.is_number_integer())
      throw std::invalid_argument(std::string(name) + ": expected an integer, found "
                                  + found_in(j));
    return j.is_number_unsigned() ? static_cast<int64_t>(j.get<uint64_t>()) : j.get<int64_t>();
  }
  static bool boolean(const json& j, const char* name) {
    if (!j.is_boolean())
      throw std::invalid_argument(std::string(name) + ": expected a boolean, found "
                                  + found_in(j));
    return j.get<bool>();
  }
  static std::string text(json& j, const char* name) {
    if (!j.is_string())
      throw std::invalid_argument(std::string(name) + ": expected a string, found "
                                  + found_in(j));
    return std::move(j.get_ref<std::string&>());
  }

  template <class T>
  void build(T& x);

private:
  change_fields& f_;
};

template <class T>
concept only_a_task = std::is_same_v<T, clear_blocked> || std::is_same_v<T, clear_active_stage>
                    || std::is_same_v<T, clear_retry_handoff>
                    || std::is_same_v<T, clear_intervention> || std::is_same_v<T, remove_task>;

template <class T>
void change_builder::build(T& x) {
  if constexpr (only_a_task<T>) {
    need({"task"});
    x.task = std::move(f_.task);
  } else if constexpr (std::is_same_v<T, begin_work_unit>) {
    need({"task", "work_unit_id"});
    x.task = std::move(f_.task);
    x.work_unit_id = std::move(f_.work_unit_id);
  } else if constexpr (std::is_same_v<T, set_task_flag>) {
    need({"task", "flag", "value"});
    x.task = std::move(f_.task);
    if (f_.flag == "worker_done")
      x.flag = task_flag::worker_done;
    else if (f_.flag == "selfcheck_done")
      x.flag = task_flag::selfcheck_done;
    else
      throw std::invalid_argument("flag: unknown task flag \"" + f_.flag + "\"");
    x.value = boolean(f_.value, "value");
  } else if constexpr (std::is_same_v<T, set_blocked>) {
    need({"task", "info"});
    x.task = std::move(f_.task);
    x.info = std::move(f_.info);
  } else if constexpr (std::is_same_v<T, set_active_stage>) {
    need({"task", "stage", "locator"});
    x.task = std::move(f_.task);
    x.stage = std::move(f_.stage);
    x.locator = std::move(f_.locator);
  } else if constexpr (std::is_same_v<T, set_counter>) {
    need({"task", "name", "value"});
    x.task = std::move(f_.task);
    x.name = std::move(f_.name);
    x.value = integer(f_.value, "value");
  } else if constexpr (std::is_same_v<T, record_failure> || std::is_same_v<T, reset_failures>) {
    need({"task", "stage"});
    x.task = std::move(f_.task);
    x.stage = std::move(f_.stage);
  } else if constexpr (std::is_same_v<T, record_decision>
                       || std::is_same_v<T, set_completing_decision>) {
    need({"task", "decision"});
    x.task = std::move(f_.task);
    x.decision = std::move(f_.decision);
  } else if constexpr (std::is_same_v<T, set_quota_snapshot>) {
    need({"task", "quota"});
    x.task = std::move(f_.task);
    x.quota = std::move(f_.quota);
  } else if constexpr (std::is_same_v<T, set_retry_handoff>) {
    need({"task", "handoff"});
    x.task = std::move(f_.task);
    x.handoff = std::move(f_.handoff);
  } else if constexpr (std::is_same_v<T, record_attempt_started>) {
    need({"task", "stage", "plan", "role", "attempt", "locator"});
    x.task = std::move(f_.task);
    x.stage = std::move(f_.stage);
    x.plan = f_.plan;
    x.role = std::move(f_.role);
    x.attempt = integer(f_.attempt, "attempt");
    x.locator = std::move(f_.locator);
    x.consume_handoff_id = std::move(f_.consume_handoff_id);
  } else if constexpr (std::is_same_v<T, set_intervention>) {
    need({"task", "context"});
    x.task = std::move(f_.task);
    x.context = std::move(f_.context);
  } else if constexpr (std::is_same_v<T, record_write_set>) {
    need({"task", "attempt_id", "phase", "files"});
    x.task = std::move(f_.task);
    x.attempt_id = std::move(f_.attempt_id);
    if (f_.phase == "before")
      x.phase = snapshot_phase::before;
    else if (f_.phase == "after")
      x.phase = snapshot_phase::after;
    else
      throw std::invalid_argument("phase: unknown snapshot phase \"" + f_.phase + "\"");
    x.files = std::move(f_.files);
  } else if constexpr (std::is_same_v<T, set_attempt_counter>) {
    need({"task", "plan", "role", "value"});
    x.key.task = std::move(f_.task);
    x.key.plan = f_.plan;
    x.key.role = std::move(f_.role);
    x.value = integer(f_.value, "value");
  } else if constexpr (std::is_same_v<T, replace_claim>) {
    need({"owner", "claim"});
    x.owner = std::move(f_.owner);
    if (!f_.claim.is_object())
      throw std::invalid_argument(std::string("claim: expected an object, found ")
                                  + found_in(f_.claim));
    try {
      f_.claim.get_to(x.claim);
    } catch (const std::exception& e) {
      throw std::invalid_argument("claim: " + exception_text(e));
    }
  } else if constexpr (std::is_same_v<T, release_claim>) {
    need({"owner"});
    x.owner = std::move(f_.owner);
  } else if constexpr (std::is_same_v<T, observe_orchestration>) {
    need({"scope", "tasks"});
    x.scope = std::move(f_.scope);
    x.tasks = std::move(f_.tasks);
  } else if constexpr (std::is_same_v<T, set_orchestration_status>) {
    need({"scope", "status"});
    x.scope = std::move(f_.scope);
    auto parsed = parse_orchestration_status(f_.status);
    if (!parsed)
      throw std::invalid_argument("status: " + parsed.error().message());
    x.status = *parsed;
  } else if constexpr (std::is_same_v<T, complete_orchestration_task>) {
    need({"scope", "task", "archive"});
    x.scope = std::move(f_.scope);
    x.task = std::move(f_.task);
    x.archive = std::move(f_.archive);
  } else if constexpr (std::is_same_v<T, record_claim_violation>) {
    need({"task", "attempt", "path", "other_task", "attribution", "candidates", "action", "at"});
    x.task = std::move(f_.task);
    x.attempt = text(f_.attempt, "attempt");
    x.path = std::move(f_.path);
    x.other_task = std::move(f_.other_task);
    x.attribution = std::move(f_.attribution);
    x.candidates = std::move(f_.candidates);
    x.action = std::move(f_.action);
    x.at = f_.at;
  } else if constexpr (std::is_same_v<T, record_attempt_usage>) {
    need({"attempt_id", "task", "usage"});
    x.attempt_id = std::move(f_.attempt_id);
    x.task = std::move(f_.task);
    x.target = std::move(f_.target);
    auto usage = usage_from_json(f_.usage);
    if (!usage)
      throw std::invalid_argument("usage: " + usage.error().message());
    x.usage = std::move(*usage);
  } else {
    static_assert(!sizeof(T), "every change is built");
  }
}

// The changes' names, in the variant's order.
template <std::size_t... Is>
std::array<std::string, sizeof...(Is)> names_of(std::index_sequence<Is...>) {
  return {change_name(state_change(std::in_place_index<Is>))...};
}
constexpr std::size_t change_kinds = std::variant_size_v<state_change>;
const auto& op_names() {
  static const auto names = names_of(std::make_index_sequence<change_kinds>{});
  return names;
}

template <std::size_t... Is>
state_change build_change(std::size_t index, change_fields& f, std::index_sequence<Is...>) {
  state_change out;
  change_builder b(f);
  auto one = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
    if (index != I)
      return;
    auto& x = out.emplace<I>();
    b.build(x);
  };
  (one(std::integral_constant<std::size_t, Is>{}), ...);
  return out;
}

// The change `f` holds, or corruption() naming `source` and, for a change of
// an entry, `where` ("changes[2]"). The builder's reasons begin with the
// member they are about ("value: ...") or name a missing one ("\"task\" is
// missing").
result<state_change> to_change(change_fields& f, std::string_view source,
                               const std::string& where) {
  const auto& names = op_names();
  std::size_t index = 0;
  while (index < names.size() && names[index] != f.op)
    ++index;
  if (index == names.size())
    return status::corruption(std::string(source) + ": unknown state change \"" + f.op + "\"");
  try {
    return build_change(index, f, std::make_index_sequence<change_kinds>{});
  } catch (const std::exception& e) {
    auto what = exception_text(e);
    if (!where.empty())
      what = where + (what.starts_with('"') ? ": " : ".") + what;
    return status::corruption(std::string(source) + ": malformed state change: " + what);
  }
}

status reader_failure(std::string_view source, const task_reader& r) {
  return status::corruption(std::string(source) + ": malformed state change: " + r.failure());
}

// The reader behind the interface feed_json_events hands its events to.
using change_events = json_sax_forward<task_reader>;

// Read through simdjson (runtime/core/json_events.hpp); text it does not
// take goes through nlohmann's parser, and text that is no JSON is reported
// as parse_json reports it (the text is parsed again, on this path only).
template <class T>
status read_text(std::string_view text, std::string_view source, T& out) {
  task_reader r(task_json::slot_of(out));
  bool read = false;
  try {
    change_events events(r);
    auto fed = feed_json_events(text, events);
    if (fed == json_events::not_read)
      read = json::sax_parse(text.begin(), text.end(), &r);
    else
      read = fed == json_events::all;
  } catch (const std::exception&) {
  }
  if (read && r.done())
    return status::ok();
  if (auto tree = parse_json(text, source); !tree)
    return status::corruption(tree.error().message());
  return reader_failure(source, r);
}

} // namespace

result<journal_entry> read_journal_entry(std::string_view text, std::string_view source,
                                         uint64_t held) {
  entry_fields fields;
  auto lacks = [&] {
    return status::corruption(std::string(source) + ": entry lacks seq or changes");
  };
  if (auto st = read_text(text, source, fields); !st) {
    // Whether the damage matters depends on the seq, written after the
    // changes: the entry is read again as a tree, as the replay reads one
    // it skips.
    auto tree = parse_json(text, source);
    if (!tree)
      return st;
    auto seq = tree->is_object() ? tree->find("seq") : tree->end();
    auto changes = tree->is_object() ? tree->find("changes") : tree->end();
    if (seq == tree->end() || !seq->is_number_unsigned() || changes == tree->end()
        || !changes->is_array())
      return lacks();
    if (seq->get<uint64_t>() != held + 1)
      return journal_entry{seq->get<uint64_t>(), {}};
    return st;
  }
  bool has_changes = fields.present & 1;  // the shape's first field
  if (!fields.seq.is_number_unsigned() || !has_changes)
    return lacks();
  journal_entry out{fields.seq.get<uint64_t>(), {}};
  if (out.seq != held + 1)
    return out;
  out.changes.reserve(fields.changes.size());
  for (std::size_t i = 0; i < fields.changes.size(); ++i) {
    auto change = to_change(fields.changes[i], source, "changes[" + std::to_string(i) + "]");
    if (!change)
      return change.error();
    out.changes.push_back(std::move(*change));
  }
  return out;
}

result<state_change> change_from_json(const json& j, std::string_view source) {
  change_fields fields;
  task_reader r(task_json::slot_of(fields));
  if (!replay_tree(j, r))
    return reader_failure(source, r);
  return to_change(fields, source, "");
}

result<std::vector<state_change>> changes_from_json_text(std::string_view text,
                                                         std::string_view source) {
  std::vector<change_fields> fields;
  if (auto st = read_text(text, source, fields); !st)
    return st;
  std::vector<state_change> out;
  out.reserve(fields.size());
  for (std::size_t i = 0; i < fields.size(); ++i) {
    auto change = to_change(fields[i], source, "[" + std::to_string(i) + "]");
    if (!change)
      return change.error();
    out.push_back(std::move(*change));
  }
  return out;
}

} // namespace ad::runtime
