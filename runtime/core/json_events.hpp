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

#include <string_view>

#include "runtime/core/json.hpp"

namespace ad::runtime {

enum class json_events {
  all,       // every value was handed over and each was taken
  refused,   // the handler returned false: the events stopped there
  not_read,  // simdjson did not take the text: nothing was handed over
};

// One parser per thread, kept for the next text (its buffers grow to the
// largest text read on that thread).
json_events feed_json_events(std::string_view text, nlohmann::json_sax<json>& handler);

} // namespace ad::runtime
