#pragma once
// JSON text read by simdjson and handed, value by value, to a handler of
// nlohmann's SAX interface: the events nlohmann's sax_parse would give for
// the same text, in the same order, but several times faster on the text
// the state's readers go through most (the journal's entries). A
// non-negative integer comes as number_unsigned and a negative one as
// number_integer, as nlohmann gives them; a number with a fraction or an
// exponent as number_float with an empty text (no reader here uses the
// text); start_object and start_array with an unknown size.
//
// simdjson checks the whole text before the first event: text it does not
// take (not JSON, nested deeper than it goes, an integer past 64 bits, and
// text where "-0" may be the integer whose sign simdjson drops) gets no
// event at all, and the caller parses it with nlohmann instead, whose
// messages say where and why. So what a reader reports for damaged text does
// not depend on this reader.

#include <cstddef>
#include <string_view>

#include "runtime/core/file_text.hpp"
#include "runtime/core/json.hpp"

namespace ad::runtime {

// A handler of nlohmann's SAX interface that hands every event, parse
// errors included, to `target`: any class with the same member functions
// (a reader that is no json_sax, or another handler). A subclass may take
// over one of them.
template <class Target>
class json_sax_forward : public nlohmann::json_sax<json> {
public:
  explicit json_sax_forward(Target& target) : target_(target) {}

  bool null() override { return target_.null(); }
  bool boolean(bool v) override { return target_.boolean(v); }
  bool number_integer(number_integer_t v) override { return target_.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) override { return target_.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& text) override {
    return target_.number_float(v, text);
  }
  bool string(string_t& v) override { return target_.string(v); }
  bool binary(binary_t& v) override { return target_.binary(v); }
  bool start_object(std::size_t n) override { return target_.start_object(n); }
  bool key(string_t& k) override { return target_.key(k); }
  bool end_object() override { return target_.end_object(); }
  bool start_array(std::size_t n) override { return target_.start_array(n); }
  bool end_array() override { return target_.end_array(); }
  bool parse_error(std::size_t byte, const std::string& token,
                   const nlohmann::detail::exception& e) override {
    return target_.parse_error(byte, token, e);
  }

protected:
  Target& target_;
};

enum class json_events {
  all,       // every value was handed over and each was taken
  refused,   // the handler returned false: the events stopped there
  not_read,  // simdjson did not take the text: nothing was handed over
};

// One parser per thread, kept for the next text (its buffers grow to the
// largest text read on that thread).
json_events feed_json_events(std::string_view text, nlohmann::json_sax<json>& handler);

// The same for a large text (the state's snapshot), a piece at a time: the
// containers less than `piece_depth` deep are walked where they lie
// (simdjson's On Demand API), and each value `piece_depth` deep, and each
// scalar above that, is checked and handed over by itself, as
// feed_json_events hands over a text. The whole text's document would take
// several times the text in fresh memory; here simdjson holds 4 bytes per
// token of the text and one piece's document at a time. A piece where "-0"
// may be the integer goes through nlohmann's parser, so the events stay
// nlohmann's. Unlike feed_json_events, text it does not take may be found
// out after some events were handed over: the result is then not_read, and
// the caller discards what its handler took and parses the text with
// nlohmann. At depth 0 the whole text is one piece.
json_events feed_json_events_in_pieces(const file_text& text, std::size_t piece_depth,
                                       nlohmann::json_sax<json>& handler);

} // namespace ad::runtime
