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
// goes to nlohmann's parser (the caller's; a piece's here), and the events
// never differ: "-0" not followed by a fraction, an exponent or a digit,
// anywhere (inside a string too: telling would take a parse).
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

// Hands nlohmann's events to a handler and tells its refusal from
// nlohmann's own (the text's damage), which the handler never sees.
class refusal_watch final : public json_sax_forward<nlohmann::json_sax<json>> {
public:
  using json_sax_forward::json_sax_forward;
  bool damaged = false;

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    damaged = true;
    return false;
  }
};

// One parser per thread, kept for the next text.
simdjson::dom::parser& dom_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

// The events of a text simdjson checks; `padded`: the text is readable
// SIMDJSON_PADDING bytes past its end (a piece of a file_text), so
// simdjson reads it where it lies.
json_events feed_checked(std::string_view text, nlohmann::json_sax<json>& handler,
                         bool padded) {
  auto parsed = dom_parser().parse(text.data(), text.size(), !padded);
  if (parsed.error())
    return json_events::not_read;
  json_event_walk walk(handler);
  return walk.value(parsed.value_unsafe()) ? json_events::all : json_events::refused;
}

// A piece where "-0" may be the integer: checked by simdjson, then read by
// nlohmann, whose events keep the sign.
json_events feed_through_nlohmann(std::string_view text, nlohmann::json_sax<json>& handler) {
  if (dom_parser().parse(text.data(), text.size(), false).error())
    return json_events::not_read;
  refusal_watch watch(handler);
  bool read = false;
  try {
    read = json::sax_parse(text.begin(), text.end(), &watch);
  } catch (const std::exception&) {
    return json_events::not_read;
  }
  return read ? json_events::all : watch.damaged ? json_events::not_read : json_events::refused;
}

// A piece of a file_text, its padding past the end.
json_events feed_piece(std::string_view text, nlohmann::json_sax<json>& handler) {
  return may_hold_minus_zero(text) ? feed_through_nlohmann(text, handler)
                                   : feed_checked(text, handler, true);
}

// Walks the containers above the pieces with simdjson's On Demand API.
class piece_walk {
public:
  piece_walk(nlohmann::json_sax<json>& handler, std::size_t piece_depth)
    : handler_(handler), piece_depth_(piece_depth) {}

  json_events value(simdjson::ondemand::value v, std::size_t depth) {
    simdjson::ondemand::json_type type;
    if (v.type().get(type))
      return json_events::not_read;
    if (type == simdjson::ondemand::json_type::object) {
      simdjson::ondemand::object object;
      if (v.get_object().get(object))
        return json_events::not_read;
      return depth >= piece_depth_ ? piece(object.raw_json()) : members(object, depth);
    }
    if (type == simdjson::ondemand::json_type::array) {
      simdjson::ondemand::array array;
      if (v.get_array().get(array))
        return json_events::not_read;
      return depth >= piece_depth_ ? piece(array.raw_json()) : elements(array, depth);
    }
    return scalar(v, type);
  }

  json_events members(simdjson::ondemand::object& object, std::size_t depth) {
    if (!handler_.start_object(std::size_t(-1)))
      return json_events::refused;
    for (auto field : object) {
      std::string_view key;
      if (field.unescaped_key().get(key))
        return json_events::not_read;
      text_.assign(key);
      if (!handler_.key(text_))
        return json_events::refused;
      if (auto fed = value(field.value(), depth + 1); fed != json_events::all)
        return fed;
    }
    return handler_.end_object() ? json_events::all : json_events::refused;
  }

  json_events elements(simdjson::ondemand::array& array, std::size_t depth) {
    if (!handler_.start_array(std::size_t(-1)))
      return json_events::refused;
    for (auto item : array) {
      simdjson::ondemand::value v;
      if (item.get(v))
        return json_events::not_read;
      if (auto fed = value(v, depth + 1); fed != json_events::all)
        return fed;
    }
    return handler_.end_array() ? json_events::all : json_events::refused;
  }

private:
  // A scalar above the pieces is read where it lies, so the walk goes on
  // right after it: a value left unread would be passed over by a skip that
  // checks nothing in between.
  json_events scalar(simdjson::ondemand::value& v, simdjson::ondemand::json_type type) {
    using simdjson::ondemand::json_type;
    auto took = [](bool taken) { return taken ? json_events::all : json_events::refused; };
    switch (type) {
    case json_type::string: {
      std::string_view text;
      if (v.get_string().get(text))
        return json_events::not_read;
      text_.assign(text);
      return took(handler_.string(text_));
    }
    case json_type::boolean: {
      bool b = false;
      if (v.get_bool().get(b))
        return json_events::not_read;
      return took(handler_.boolean(b));
    }
    case json_type::null: {
      bool null = false;
      if (v.is_null().get(null) || !null)
        return json_events::not_read;
      return took(handler_.null());
    }
    case json_type::number: {
      // Read where it lies to go past it, and handed over as a piece of
      // its own: the On Demand API's get_number (3.0.1, with this build's
      // fallback kernel) gave 0 for 18.46744073709551615
      // (tests/fuzz/corpus/json_events/long-fraction-above-the-pieces).
      const std::string_view token = v.raw_json_token();
      double passed = 0;
      if (v.get_double().get(passed))
        return json_events::not_read;
      return feed_piece(token, handler_);
    }
    default: return json_events::not_read;
    }
  }

  json_events piece(simdjson::simdjson_result<std::string_view>&& raw) {
    std::string_view text;
    if (std::move(raw).get(text))
      return json_events::not_read;
    return feed_piece(text, handler_);
  }

  nlohmann::json_sax<json>& handler_;
  std::size_t piece_depth_;
  std::string text_;  // the key or string handed over; the handler may take it
};

} // namespace

json_events feed_json_events(std::string_view text, nlohmann::json_sax<json>& handler) {
  if (may_hold_minus_zero(text))
    return json_events::not_read;
  return feed_checked(text, handler, false);
}

json_events feed_json_events_in_pieces(const file_text& text, std::size_t piece_depth,
                                       nlohmann::json_sax<json>& handler) {
  static_assert(file_text::padding >= simdjson::SIMDJSON_PADDING);
  if (text.empty())
    return json_events::not_read;
  if (piece_depth == 0)
    return feed_piece(text.view(), handler);
  // The whole text's tokens; freed when the walk ends.
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (parser.iterate(text.view().data(), text.size(), text.size() + file_text::padding).get(doc))
    return json_events::not_read;
  simdjson::ondemand::json_type type;
  if (doc.type().get(type))
    return json_events::not_read;
  if (type != simdjson::ondemand::json_type::object && type != simdjson::ondemand::json_type::array)
    return feed_piece(text.view(), handler);  // a scalar: one piece
  piece_walk walk(handler, piece_depth);
  json_events fed = json_events::not_read;
  if (type == simdjson::ondemand::json_type::object) {
    simdjson::ondemand::object object;
    if (doc.get_object().get(object))
      return json_events::not_read;
    fed = walk.members(object, 0);
  } else {
    simdjson::ondemand::array array;
    if (doc.get_array().get(array))
      return json_events::not_read;
    fed = walk.elements(array, 0);
  }
  if (fed != json_events::all)
    return fed;
  // Nothing may follow the value.
  const char* at = nullptr;
  return doc.current_location().get(at) == simdjson::OUT_OF_BOUNDS ? json_events::all
                                                                     : json_events::not_read;
}

} // namespace ad::runtime
