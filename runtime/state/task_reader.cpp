#include "runtime/state/task_reader.hpp"

#include <stdexcept>

#include "runtime/core/exception_text.hpp"
#include "runtime/state/task_json.hpp"

namespace ad::runtime {

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
  // Refused before a tree kind's value is deep enough for a recursive walk
  // of it to exhaust the stack, as parse_json refuses such text.
  if (frames_.size() >= json_max_depth)
    return refuse("nested deeper than " + std::to_string(json_max_depth) + " levels");
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
  return refuse("invalid JSON at byte " + std::to_string(byte) + ": " + exception_text(e));
}

bool replay_tree(const json& j, task_reader& r) {
  switch (j.type()) {
  case json::value_t::object: {
    if (!r.start_object(j.size()))
      return false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      std::string k = it.key();
      if (!r.key(k) || !replay_tree(it.value(), r))
        return false;
    }
    return r.end_object();
  }
  case json::value_t::array:
    if (!r.start_array(j.size()))
      return false;
    for (const auto& item : j)
      if (!replay_tree(item, r))
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

template <class T>
void read_tree(const json& tree, T& out) {
  task_reader r(out);
  if (!replay_tree(tree, r))
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
