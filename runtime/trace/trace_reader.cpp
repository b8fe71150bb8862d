#include "runtime/trace/trace_reader.hpp"

#include <set>
#include <string>

#include "runtime/core/files.hpp"

namespace ad::runtime {

namespace {

status at_line(std::string_view source, std::size_t line, std::string_view what) {
  return status::invalid_argument(std::string(source) + ":" + std::to_string(line) + ": " +
                                  std::string(what));
}

} // namespace

result<trace_file> parse_trace(std::string_view text, std::string_view source) {
  trace_file out;
  bool have_header = false;
  std::set<int64_t> edges;
  int64_t last_seq = 0;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos)
      end = text.size();
    auto line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos)
      continue;
    auto doc = parse_json(line, "line");
    if (!doc.is_ok() && have_header && pos > text.size()) {
      out.cut_last_line = line_no; // no newline after it: its write was cut
      break;
    }
    if (!doc.is_ok())
      return at_line(source, line_no, doc.error().message());
    if (!have_header) {
      auto h = trace_header_from_json(*doc);
      if (!h.is_ok())
        return at_line(source, line_no, h.error().message());
      out.header = std::move(*h);
      have_header = true;
      continue;
    }
    auto r = trace_record_from_json(*doc);
    if (!r.is_ok())
      return at_line(source, line_no, r.error().message());
    if (r->seq <= last_seq)
      return at_line(source, line_no,
                     "seq " + std::to_string(r->seq) + " does not follow " + std::to_string(last_seq));
    last_seq = r->seq;
    if (r->dir == trace_direction::edge)
      edges.insert(r->seq);
    else if (r->cause != 0 && !edges.count(r->cause))
      return at_line(source, line_no,
                     "cause " + std::to_string(r->cause) + " is not an earlier edge");
    out.records.push_back(std::move(*r));
  }
  if (!have_header)
    return at_line(source, line_no == 0 ? 1 : line_no, "no header line (empty trace)");
  return out;
}

result<trace_file> read_trace(const std::filesystem::path& file) {
  auto text = read_file(file, trace_max_bytes);
  if (!text.is_ok())
    return text.error();
  return parse_trace(*text, file.string());
}

} // namespace ad::runtime
