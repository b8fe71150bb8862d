#include "runtime/state/task_reader.hpp"

#include "runtime/state/model_json.hpp"

#include <optional>
#include <stdexcept>
#include <type_traits>

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

const char* found_name(scalar::type t) {
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

template <class S>
struct struct_kind final : kind {
  static constexpr auto& fields = shape<S>::fields;
  static_assert(std::size(shape<S>::fields) <= 32, "seen is a 32-bit mask");

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
        r.top().seen |= uint32_t{1} << i;
        r.expect(fields[i].bind(t));
        return;
      }
    r.expect(slot{&the_kind<skip_kind>, nullptr});
  }
  bool close(void*, task_reader& r) const override {
    for (std::size_t i = 0; i < std::size(fields); ++i)
      if (fields[i].required && !(r.top().seen & (uint32_t{1} << i)))
        return r.refuse("\"" + std::string(fields[i].name) + "\" is missing");
    return true;
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

task_reader::task_reader(slot root) : next_(root) { frames_.reserve(8); }
task_reader::task_reader(task_state& out) : task_reader(task_json::slot_of(out)) {}
task_reader::task_reader(route_candidate& out) : task_reader(task_json::slot_of(out)) {}
task_reader::task_reader(quota_snapshot& out) : task_reader(task_json::slot_of(out)) {}
task_reader::task_reader(route_decision& out) : task_reader(task_json::slot_of(out)) {}
task_reader::task_reader(retry_handoff& out) : task_reader(task_json::slot_of(out)) {}
task_reader::task_reader(blocked_info& out) : task_reader(task_json::slot_of(out)) {}
task_reader::task_reader(named_file& out) : task_reader(task_json::slot_of(out)) {}
task_reader::task_reader(intervention_context& out) : task_reader(task_json::slot_of(out)) {}
task_reader::task_reader(file_snapshot& out) : task_reader(task_json::slot_of(out)) {}
task_reader::task_reader(write_set_snapshot& out) : task_reader(task_json::slot_of(out)) {}

namespace {

// Where the reader is, as a path from the value's root: "route_history[2]
// .stage". `pending`: including the value the next event starts.
std::string path_of(const std::vector<task_reader::frame>& frames, bool pending,
                    const std::string& key) {
  std::string out;
  auto step = [&](const task_reader::frame* parent, const std::string& name) {
    if (parent && parent->array) {
      out += '[' + std::to_string(parent->index - 1) + ']';
      return;
    }
    if (!out.empty())
      out += '.';
    out += name;
  };
  for (std::size_t i = 1; i < frames.size(); ++i)
    step(&frames[i - 1], frames[i].name);
  if (pending && !frames.empty())
    step(&frames.back(), key);
  return out;
}

} // namespace

bool task_reader::refuse(std::string what) {
  // A kind refuses either the value about to be read (take, open, the
  // reader's own checks) or, from close(), the container on top.
  if (failure_.empty()) {
    auto where = path_of(frames_, next_.kind != nullptr, key_);
    failure_ = where.empty() ? std::move(what) : where + ": " + what;
  }
  return false;
}

bool task_reader::mismatch(const char* expected, const char* found) {
  return refuse(std::string("expected ") + expected + ", found " + found);
}

bool task_reader::value_begins() {
  if (done_)
    return refuse("more than one value");
  if (!frames_.empty() && top().array) {
    ++top().index;
    top().value.kind->element(top().value.target, *this);
  }
  return true;
}

bool task_reader::value_ended() {
  next_ = slot{};
  if (frames_.empty())
    done_ = true;
  return true;
}

bool task_reader::scalar_value(const task_json::scalar& v) {
  return value_begins() && next_.kind->take(next_.target, v, *this) && value_ended();
}

bool task_reader::null() { return scalar_value({task_json::scalar::type::null}); }
bool task_reader::boolean(bool b) {
  task_json::scalar v{task_json::scalar::type::boolean};
  v.b = b;
  return scalar_value(v);
}
bool task_reader::number_integer(json::number_integer_t i) {
  task_json::scalar v{task_json::scalar::type::integer};
  v.i = i;
  return scalar_value(v);
}
bool task_reader::number_unsigned(json::number_unsigned_t u) {
  task_json::scalar v{task_json::scalar::type::natural};
  v.u = u;
  return scalar_value(v);
}
bool task_reader::number_float(json::number_float_t d, const json::string_t&) {
  task_json::scalar v{task_json::scalar::type::fraction};
  v.d = d;
  return scalar_value(v);
}
bool task_reader::string(json::string_t& s) {
  task_json::scalar v{task_json::scalar::type::text};
  v.s = &s;
  return scalar_value(v);
}
bool task_reader::binary(json::binary_t&) {
  if (!value_begins())
    return false;
  return mismatch(next_.kind->expected, "binary data");
}

bool task_reader::key(json::string_t& k) {
  if (frames_.empty() || top().array)
    return refuse("a member name outside an object");
  key_ = k;
  top().value.kind->member(top().value.target, key_, *this);
  return true;
}

bool task_reader::open(bool array) {
  if (!value_begins())
    return false;
  slot pushed;
  if (!next_.kind->open(next_.target, array, *this, pushed))
    return false;
  frame f;
  if (!frames_.empty() && !top().array)
    f.name = key_;
  f.value = pushed;
  f.array = array;
  frames_.push_back(std::move(f));
  next_ = slot{};
  return true;
}

bool task_reader::start_object(std::size_t) { return open(false); }
bool task_reader::start_array(std::size_t) { return open(true); }

bool task_reader::end_object() {
  if (frames_.empty() || top().array)
    return refuse("an object's end outside an object");
  if (!top().value.kind->close(top().value.target, *this))
    return false;
  frames_.pop_back();
  return value_ended();
}

bool task_reader::end_array() {
  if (frames_.empty() || !top().array)
    return refuse("an array's end outside an array");
  if (!top().value.kind->close(top().value.target, *this))
    return false;
  frames_.pop_back();
  return value_ended();
}

bool task_reader::parse_error(std::size_t byte, const std::string&,
                              const nlohmann::detail::exception& e) {
  return refuse("invalid JSON at byte " + std::to_string(byte) + ": " + e.what());
}

namespace {

// A tree's events, as the parser would have sent them for its text.
bool replay(const json& j, task_reader& r) {
  switch (j.type()) {
  case json::value_t::object: {
    if (!r.start_object(j.size()))
      return false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      std::string k = it.key();
      if (!r.key(k) || !replay(it.value(), r))
        return false;
    }
    return r.end_object();
  }
  case json::value_t::array:
    if (!r.start_array(j.size()))
      return false;
    for (const auto& item : j)
      if (!replay(item, r))
        return false;
    return r.end_array();
  case json::value_t::string: {
    std::string s = j.get_ref<const std::string&>();
    return r.string(s);
  }
  case json::value_t::boolean: return r.boolean(j.get<bool>());
  case json::value_t::number_integer: return r.number_integer(j.get<int64_t>());
  case json::value_t::number_unsigned: return r.number_unsigned(j.get<uint64_t>());
  case json::value_t::number_float: return r.number_float(j.get<double>(), std::string());
  case json::value_t::binary: {
    json::binary_t b = j.get_binary();
    return r.binary(b);
  }
  default: return r.null();
  }
}

} // namespace

template <class T>
void read_tree(const json& tree, T& out) {
  task_reader r(out);
  if (!replay(tree, r))
    throw std::invalid_argument(r.failure());
}

template void read_tree(const json&, task_state&);
template void read_tree(const json&, route_candidate&);
template void read_tree(const json&, quota_snapshot&);
template void read_tree(const json&, route_decision&);
template void read_tree(const json&, retry_handoff&);
template void read_tree(const json&, blocked_info&);
template void read_tree(const json&, named_file&);
template void read_tree(const json&, intervention_context&);
template void read_tree(const json&, file_snapshot&);
template void read_tree(const json&, write_set_snapshot&);

} // namespace ad::runtime
