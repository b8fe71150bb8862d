#include "runtime/core/json_events.hpp"

#include <cstdint>
#include <simdjson.h>
#include <string>

namespace ad::runtime {

namespace {

using element_type = simdjson::dom::element_type;

// Walks one checked value; false as soon as the handler refuses.
class json_event_walk {
public:
  explicit json_event_walk(nlohmann::json_sax<json>& handler) : handler_(handler) {}

  bool value(simdjson::dom::element e) {
    switch (e.type()) {
    case element_type::OBJECT: {
      if (!handler_.start_object(std::size_t(-1)))
        return false;
      // value_unsafe() names a member of the temporary result: copied out
      // before the loop, which would otherwise outlive it.
      simdjson::dom::object object = e.get_object().value_unsafe();
      for (auto field : object) {
        text_.assign(field.key);
        if (!handler_.key(text_) || !value(field.value))
          return false;
      }
      return handler_.end_object();
    }
    case element_type::ARRAY: {
      if (!handler_.start_array(std::size_t(-1)))
        return false;
      simdjson::dom::array array = e.get_array().value_unsafe();
      for (auto item : array)
        if (!value(item))
          return false;
      return handler_.end_array();
    }
    case element_type::STRING:
      text_.assign(e.get_string().value_unsafe());
      return handler_.string(text_);
    case element_type::INT64: {
      int64_t v = e.get_int64().value_unsafe();
      if (v >= 0)
        return handler_.number_unsigned(static_cast<uint64_t>(v));
      return handler_.number_integer(v);
    }
    case element_type::UINT64: return handler_.number_unsigned(e.get_uint64().value_unsafe());
    case element_type::DOUBLE:
      text_.clear();
      return handler_.number_float(e.get_double().value_unsafe(), text_);
    case element_type::BOOL: return handler_.boolean(e.get_bool().value_unsafe());
    case element_type::NULL_VALUE: return handler_.null();
    }
    return false;
  }

private:
  nlohmann::json_sax<json>& handler_;
  std::string text_;  // the key or string handed over; the handler may take it
};

// simdjson reads the integer -0 as 0, and its sign is gone; nlohmann hands
// it over as a negative integer. So text where "-0" may be that integer
// goes to the caller's parser, and the events never differ: "-0" not
// followed by a fraction, an exponent or a digit, anywhere (inside a
// string too: telling would take a parse).
bool may_hold_minus_zero(std::string_view text) {
  for (auto at = text.find("-0"); at != std::string_view::npos; at = text.find("-0", at + 2)) {
    if (at + 2 == text.size())
      return true;
    char next = text[at + 2];
    if (next != '.' && next != 'e' && next != 'E' && (next < '0' || next > '9'))
      return true;
  }
  return false;
}

} // namespace

json_events feed_json_events(std::string_view text, nlohmann::json_sax<json>& handler) {
  if (may_hold_minus_zero(text))
    return json_events::not_read;
  thread_local simdjson::dom::parser parser;
  auto parsed = parser.parse(text.data(), text.size(), true);
  if (parsed.error())
    return json_events::not_read;
  json_event_walk walk(handler);
  return walk.value(parsed.value_unsafe()) ? json_events::all : json_events::refused;
}

} // namespace ad::runtime
