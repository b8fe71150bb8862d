#pragma once
// How the state's structs take a JSON parser's events (task_reader's kinds):
// one kind per C++ type (strings, integers, optionals, vectors, maps, and a
// struct by the names of its members, its shape), and a JSON tree kind for a
// value converted after it is read. Used by task_reader.cpp (a task and the
// structs inside it) and change_reader.cpp (the journal's changes); not part
// of either's interface.

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "runtime/core/json.hpp"
#include "runtime/state/model.hpp"
#include "runtime/state/model_json.hpp"
#include "runtime/state/task_reader.hpp"

namespace ad::runtime {

namespace task_json {

using slot = task_reader::slot;

// A scalar event: which JSON type it was and its value.
struct scalar {
  enum class type : uint8_t { null, boolean, integer, natural, fraction, text } what;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  const std::string* s = nullptr;
};

inline const char* found_name(scalar::type t) {
  switch (t) {
  case scalar::type::null: return "null";
  case scalar::type::boolean: return "a boolean";
  case scalar::type::text: return "a string";
  default: return "a number";
  }
}

// How values of one C++ type take events. `target` points at such a value.
// open() answers which container frame the reader pushes (usually this kind
// and the target itself; an optional's is its contents').
struct kind {
  const char* expected;  // "a string": for messages

  constexpr explicit kind(const char* what) : expected(what) {}
  virtual bool take(void*, const scalar& v, task_reader& r) const {
    return r.mismatch(expected, found_name(v.what));
  }
  virtual bool open(void*, bool array, task_reader& r, slot&) const {
    return r.mismatch(expected, array ? "an array" : "an object");
  }
  virtual void member(void*, const std::string&, task_reader&) const {}
  virtual void element(void*, task_reader&) const {}
  virtual bool close(void*, task_reader&) const { return true; }

protected:
  ~kind() = default;
};

template <class T>
struct kind_for;

template <class K>
inline constexpr K the_kind{};

template <class T>
slot slot_of(T& x) {
  return slot{&the_kind<typename kind_for<T>::type>, &x};
}

// An unknown member: passed over whatever it holds.
struct skip_kind final : kind {
  constexpr skip_kind() : kind("anything") {}
  bool take(void*, const scalar&, task_reader&) const override { return true; }
  bool open(void*, bool, task_reader&, slot& pushed) const override {
    pushed = slot{this, nullptr};
    return true;
  }
  void member(void*, const std::string&, task_reader& r) const override {
    r.expect(slot{this, nullptr});
  }
  void element(void*, task_reader& r) const override { r.expect(slot{this, nullptr}); }
};

struct string_kind final : kind {
  constexpr string_kind() : kind("a string") {}
  bool take(void* t, const scalar& v, task_reader& r) const override {
    if (v.what != scalar::type::text)
      return kind::take(t, v, r);
    static_cast<std::string*>(t)->assign(*v.s);
    return true;
  }
};

struct bool_kind final : kind {
  constexpr bool_kind() : kind("a boolean") {}
  bool take(void* t, const scalar& v, task_reader& r) const override {
    if (v.what != scalar::type::boolean)
      return kind::take(t, v, r);
    *static_cast<bool*>(t) = v.b;
    return true;
  }
};

// An integer of any width, cast as the tree conversion cast it; a number
// with a fraction or an exponent is refused (its cast may be undefined).
template <class I>
struct integer_kind final : kind {
  constexpr integer_kind() : kind("an integer") {}
  bool take(void* t, const scalar& v, task_reader& r) const override {
    switch (v.what) {
    case scalar::type::integer: *static_cast<I*>(t) = static_cast<I>(v.i); return true;
    case scalar::type::natural: *static_cast<I*>(t) = static_cast<I>(v.u); return true;
    case scalar::type::fraction:
      return r.refuse("holds " + json(v.d).dump() + " where an integer belongs");
    default: return kind::take(t, v, r);
    }
  }
};

struct transition_kind final : kind {
  constexpr transition_kind() : kind("a transition name") {}
  bool take(void* t, const scalar& v, task_reader& r) const override {
    if (v.what != scalar::type::text)
      return kind::take(t, v, r);
    auto parsed = parse_route_transition(*v.s);
    if (!parsed)
      return r.refuse(parsed.error().message());
    *static_cast<route_transition*>(t) = *parsed;
    return true;
  }
};

template <class T>
struct optional_kind final : kind {
  constexpr optional_kind() : kind(the_kind<typename kind_for<T>::type>.expected) {}
  bool take(void* t, const scalar& v, task_reader& r) const override {
    auto& x = *static_cast<std::optional<T>*>(t);
    if (v.what == scalar::type::null) {
      x.reset();
      return true;
    }
    auto inner = slot_of(x.emplace());
    return inner.kind->take(inner.target, v, r);
  }
  bool open(void* t, bool array, task_reader& r, slot& pushed) const override {
    auto inner = slot_of(static_cast<std::optional<T>*>(t)->emplace());
    return inner.kind->open(inner.target, array, r, pushed);
  }
};

// A shared value is read into a fresh value of its own.
template <class T>
struct shared_kind final : kind {
  constexpr shared_kind() : kind(the_kind<typename kind_for<T>::type>.expected) {}
  bool take(void* t, const scalar& v, task_reader& r) const override {
    auto inner = fresh(t);
    return inner.kind->take(inner.target, v, r);
  }
  bool open(void* t, bool array, task_reader& r, slot& pushed) const override {
    auto inner = fresh(t);
    return inner.kind->open(inner.target, array, r, pushed);
  }

private:
  static slot fresh(void* t) {
    auto& x = *static_cast<shared_value<T>*>(t);
    x = shared_value<T>();
    return slot_of(x.modify());
  }
};

template <class T>
struct vector_kind final : kind {
  constexpr vector_kind() : kind("an array") {}
  bool open(void* t, bool array, task_reader& r, slot& pushed) const override {
    if (!array)
      return kind::open(t, array, r, pushed);
    static_cast<std::vector<T>*>(t)->clear();
    pushed = slot{this, t};
    return true;
  }
  void element(void* t, task_reader& r) const override {
    r.expect(slot_of(static_cast<std::vector<T>*>(t)->emplace_back()));
  }
};

template <class T>
struct map_kind final : kind {
  constexpr map_kind() : kind("an object") {}
  bool open(void* t, bool array, task_reader& r, slot& pushed) const override {
    if (array)
      return kind::open(t, array, r, pushed);
    static_cast<std::map<std::string, T>*>(t)->clear();
    pushed = slot{this, t};
    return true;
  }
  void member(void* t, const std::string& key, task_reader& r) const override {
    auto& value = (*static_cast<std::map<std::string, T>*>(t))[key];
    value = T{};  // a key written twice: the last one counts
    r.expect(slot_of(value));
  }
};

// A struct's members by name: `bind` answers the slot of the member in an
// object of type S.
struct field {
  std::string_view name;
  bool required;
  slot (*bind)(void*);
};

template <class M>
struct member_traits;
template <class S, class T>
struct member_traits<T S::*> {
  using owner = S;
};

template <auto Member>
slot bind(void* s) {
  using owner = typename member_traits<decltype(Member)>::owner;
  return slot_of(static_cast<owner*>(s)->*Member);
}

template <class S>
struct shape;

// A struct whose shape lists a member "present" (a uint64_t) is told there
// which of its fields were met, in the order of its shape, when it closes:
// its reader checks what each use of it needs.
template <class S>
concept records_presence = requires(S& s) {
  { s.present } -> std::same_as<uint64_t&>;
};

template <class S>
struct struct_kind final : kind {
  static constexpr auto& fields = shape<S>::fields;
  static_assert(std::size(shape<S>::fields) <= 64, "seen is a 64-bit mask");

  constexpr struct_kind() : kind("an object") {}
  bool open(void* t, bool array, task_reader& r, slot& pushed) const override {
    if (array)
      return kind::open(t, array, r, pushed);
    *static_cast<S*>(t) = S{};  // a member written twice: the last one counts
    pushed = slot{this, t};
    return true;
  }
  void member(void* t, const std::string& key, task_reader& r) const override {
    for (std::size_t i = 0; i < std::size(fields); ++i)
      if (fields[i].name == key) {
        r.top().seen |= uint64_t{1} << i;
        r.expect(fields[i].bind(t));
        return;
      }
    r.expect(slot{&the_kind<skip_kind>, nullptr});
  }
  bool close(void* t, task_reader& r) const override {
    for (std::size_t i = 0; i < std::size(fields); ++i)
      if (fields[i].required && !(r.top().seen & (uint64_t{1} << i)))
        return r.refuse("\"" + std::string(fields[i].name) + "\" is missing");
    if constexpr (records_presence<S>)
      static_cast<S*>(t)->present = r.top().seen;
    return true;
  }
};

// Any JSON value, kept as a tree: for a member whose type is known only
// once its siblings are read, or whose reading lives with its tree
// conversion (a token_usage, a write_claim). Small values only: a tree is
// what the other kinds exist to avoid.
struct tree_kind final : kind {
  constexpr tree_kind() : kind("a JSON value") {}
  bool take(void* t, const scalar& v, task_reader&) const override {
    auto& j = *static_cast<json*>(t);
    switch (v.what) {
    case scalar::type::null: j = nullptr; break;
    case scalar::type::boolean: j = v.b; break;
    case scalar::type::integer: j = v.i; break;
    case scalar::type::natural: j = v.u; break;
    case scalar::type::fraction: j = v.d; break;
    case scalar::type::text: j = *v.s; break;
    }
    return true;
  }
  bool open(void* t, bool array, task_reader&, slot& pushed) const override {
    *static_cast<json*>(t) = array ? json::array() : json::object();
    pushed = slot{this, t};
    return true;
  }
  void member(void* t, const std::string& key, task_reader& r) const override {
    r.expect(slot{this, &(*static_cast<json*>(t))[key]});
  }
  void element(void* t, task_reader& r) const override {
    auto& j = *static_cast<json*>(t);
    j.push_back(nullptr);
    r.expect(slot{this, &j.back()});
  }
};

template <>
struct kind_for<std::string> {
  using type = string_kind;
};
template <>
struct kind_for<bool> {
  using type = bool_kind;
};
template <>
struct kind_for<int> {
  using type = integer_kind<int>;
};
template <>
struct kind_for<int64_t> {
  using type = integer_kind<int64_t>;
};
template <>
struct kind_for<uint64_t> {
  using type = integer_kind<uint64_t>;
};
template <>
struct kind_for<route_transition> {
  using type = transition_kind;
};
template <class T>
struct kind_for<std::optional<T>> {
  using type = optional_kind<T>;
};
template <class T>
struct kind_for<shared_value<T>> {
  using type = shared_kind<T>;
};
template <class T>
struct kind_for<std::vector<T>> {
  using type = vector_kind<T>;
};
template <class T>
struct kind_for<std::map<std::string, T>> {
  using type = map_kind<T>;
};
template <>
struct kind_for<json> {
  using type = tree_kind;
};
template <class S>
struct kind_for {
  using type = struct_kind<S>;
};

// The members of each struct as written (model_json.cpp's to_json writes the
// same names). Required: those the tree conversion read with at().
template <>
struct shape<route_candidate> {
  static constexpr field fields[] = {
    {"target", true, &bind<&route_candidate::target>},
    {"eligible", true, &bind<&route_candidate::eligible>},
    {"reasons", false, &bind<&route_candidate::reasons>},
  };
};
template <>
struct shape<quota_snapshot> {
  static constexpr field fields[] = {
    {"taken_at", true, &bind<&quota_snapshot::taken_at>},
    {"status", false, &bind<&quota_snapshot::status_by_target>},
  };
};
template <>
struct shape<route_decision> {
  static constexpr field fields[] = {
    {"work_unit_id", true, &bind<&route_decision::work_unit_id>},
    {"stage", true, &bind<&route_decision::stage>},
    {"lane", false, &bind<&route_decision::lane>},
    {"grade", false, &bind<&route_decision::grade>},
    {"candidates", false, &bind<&route_decision::candidates>},
    {"selected_target", true, &bind<&route_decision::selected_target>},
    {"rule_id", false, &bind<&route_decision::rule_id>},
    {"priority", false, &bind<&route_decision::priority>},
    {"reason_codes", false, &bind<&route_decision::reason_codes>},
    {"evaluated_at", false, &bind<&route_decision::evaluated_at>},
    {"quota", false, &bind<&route_decision::quota>},
    {"transition", true, &bind<&route_decision::transition>},
    {"previous_target", false, &bind<&route_decision::previous_target>},
    {"next_target", false, &bind<&route_decision::next_target>},
  };
};
template <>
struct shape<retry_handoff> {
  static constexpr field fields[] = {
    {"id", true, &bind<&retry_handoff::id>},
    {"failed_target", true, &bind<&retry_handoff::failed_target>},
    {"locator", true, &bind<&retry_handoff::locator>},
  };
};
template <>
struct shape<blocked_info> {
  static constexpr field fields[] = {
    {"reason", true, &bind<&blocked_info::reason>},
    {"evidence", false, &bind<&blocked_info::evidence>},
  };
};
template <>
struct shape<named_file> {
  static constexpr field fields[] = {
    {"path", true, &bind<&named_file::path>},
    {"as_written", false, &bind<&named_file::as_written>},
    {"exists", false, &bind<&named_file::exists>},
    {"mtime", false, &bind<&named_file::mtime>},
    {"in_write_set", false, &bind<&named_file::in_write_set>},
    {"changed_by", false, &bind<&named_file::changed_by>},
    {"predecessors", false, &bind<&named_file::predecessors>},
  };
};
template <>
struct shape<intervention_context> {
  static constexpr field fields[] = {
    {"pattern_ids", true, &bind<&intervention_context::pattern_ids>},
    {"instruction", true, &bind<&intervention_context::instruction>},
    {"existing_files", false, &bind<&intervention_context::existing_files>},
    {"touched_files", false, &bind<&intervention_context::touched_files>},
    {"named_files", false, &bind<&intervention_context::named_files>},
    {"created_at", false, &bind<&intervention_context::created_at>},
  };
};
template <>
struct shape<file_snapshot> {
  static constexpr field fields[] = {
    {"path", true, &bind<&file_snapshot::path>},
    {"exists", true, &bind<&file_snapshot::exists>},
    {"size", false, &bind<&file_snapshot::size>},
    {"mtime", false, &bind<&file_snapshot::mtime>},
    {"hash", false, &bind<&file_snapshot::hash>},
  };
};
template <>
struct shape<write_set_snapshot> {
  static constexpr field fields[] = {
    {"before", false, &bind<&write_set_snapshot::before>},
    {"after", false, &bind<&write_set_snapshot::after>},
  };
};
template <>
struct shape<task_state> {
  static constexpr field fields[] = {
    {"work_unit_id", true, &bind<&task_state::work_unit_id>},
    {"worker_done", false, &bind<&task_state::worker_done>},
    {"selfcheck_done", false, &bind<&task_state::selfcheck_done>},
    {"active_stage", false, &bind<&task_state::active_stage>},
    {"active_locator", false, &bind<&task_state::active_locator>},
    {"counters", false, &bind<&task_state::counters>},
    {"failure_budgets", false, &bind<&task_state::failure_budgets>},
    {"decisions", false, &bind<&task_state::decisions>},
    {"route_history", false, &bind<&task_state::route_history>},
    {"write_sets", false, &bind<&task_state::write_sets>},
    {"blocked", false, &bind<&task_state::blocked>},
    {"completing_decision", false, &bind<&task_state::completing_decision>},
    {"quota", false, &bind<&task_state::quota>},
    {"retry_handoff", false, &bind<&task_state::handoff>},
    {"intervention_context", false, &bind<&task_state::intervention>},
  };
};

} // namespace task_json

} // namespace ad::runtime
