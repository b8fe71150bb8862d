#pragma once
// Reads a task's state (task_state and the structs inside it) from a JSON
// parser's SAX events straight into the structs, with no JSON tree between.
// A snapshot holds one object per task; a tree per task, converted and then
// freed, was most of the time a restart or `status` spent reading it.
//
// This is the one definition of how a task's JSON is read: model_json.hpp's
// from_json for these structs replays a tree's events into it (read_tree).
// Rules, as the tree conversion had them: a field absent keeps its default;
// the fields marked required must be present; an unknown member is passed
// over whatever it holds; a member of the wrong JSON type, a number with a
// fraction where an integer belongs and an unknown enum name are refused.
// Nothing here throws: a refusal is a return value of false, with the
// reason in failure().

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/state/model.hpp"

namespace ad::runtime {

namespace task_json {
struct kind;
struct scalar;
}

class task_reader {
public:
  // What a value is read into: its kind (how a C++ type takes events) and
  // where it lives.
  struct slot {
    const task_json::kind* kind = nullptr;
    void* target = nullptr;
  };

  // The value the events describe is read into `out`, which is reset first.
  explicit task_reader(task_state& out);
  explicit task_reader(route_candidate& out);
  explicit task_reader(quota_snapshot& out);
  explicit task_reader(route_decision& out);
  explicit task_reader(retry_handoff& out);
  explicit task_reader(blocked_info& out);
  explicit task_reader(named_file& out);
  explicit task_reader(intervention_context& out);
  explicit task_reader(file_snapshot& out);
  explicit task_reader(write_set_snapshot& out);
  // Any value a kind of task_json.hpp reads (the journal's changes).
  explicit task_reader(slot root);

  // The SAX interface of nlohmann::json::sax_parse. Each returns false on a
  // refusal (and the parse stops).
  bool null();
  bool boolean(bool v);
  bool number_integer(json::number_integer_t v);
  bool number_unsigned(json::number_unsigned_t v);
  bool number_float(json::number_float_t v, const json::string_t& text);
  bool string(json::string_t& v);
  bool binary(json::binary_t& v);
  bool key(json::string_t& k);
  bool start_object(std::size_t n);
  bool end_object();
  bool start_array(std::size_t n);
  bool end_array();
  bool parse_error(std::size_t byte, const std::string& token,
                   const nlohmann::detail::exception& e);

  // True once the whole value has been read.
  bool done() const { return done_; }
  // Why it was refused ("route_history[2].stage: expected a string, found
  // a number"); empty while nothing was.
  const std::string& failure() const { return failure_; }

  // Used by the kinds (task_json.hpp).
  struct frame {
    slot value;
    std::string name;       // the member this container is, for messages
    std::size_t index = 0;  // elements so far, in an array
    uint64_t seen = 0;      // the fields met, in a struct
    bool array = false;
  };
  bool refuse(std::string what);
  bool mismatch(const char* expected, const char* found);
  void expect(slot next) { next_ = next; }
  frame& top() { return frames_.back(); }

private:
  bool value_begins();  // an array's element: its slot
  bool value_ended();
  bool scalar_value(const task_json::scalar& v);
  bool open(bool array);

  std::vector<frame> frames_;
  slot next_;            // what the next value is read into
  std::string key_;      // the member the next value is
  std::string failure_;
  bool done_ = false;
};

// Reads `tree` into `out` through task_reader; throws std::invalid_argument
// with the reader's reason when it refuses (for from_json's callers, which
// turn it into corruption()).
template <class T>
void read_tree(const json& tree, T& out);

// Sends `tree`'s events to `r` as the parser would have sent them for its
// text; false when the reader refused.
bool replay_tree(const json& tree, task_reader& r);

} // namespace ad::runtime
