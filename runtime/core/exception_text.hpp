#pragma once
// The text of an exception caught by a reader of outside input, fit for a
// person: nlohmann::json's own tag ("[json.exception.type_error.302] ") is
// dropped, so an error names what was wrong ("type must be string, but is
// number") after the file, line or field the caller puts before it, never a
// library's internal id. Pure; never throws.

#include <exception>
#include <string>
#include <string_view>

namespace ad::runtime {

// e.what() without a leading "[json.exception.<kind>.<id>] ".
std::string exception_text(const std::exception& e);

// The same for a message already rendered (a text that may embed the tag
// anywhere, as an error passed through several layers does).
std::string without_library_tags(std::string_view text);

} // namespace ad::runtime
