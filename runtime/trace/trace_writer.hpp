#pragma once
// Writes one message trace (runtime/trace/trace_format.hpp) as JSON Lines.
// By default each record is written to the file as it is appended (one
// write(2), no fsync): a crash of the dispatcher loses no record, since the
// OS holds what was written. A writer opened with flush_bytes > 0 buffers
// records and writes them in blocks of that size instead. stop() (or the
// destructor) writes what is left and closes the file. Every string of a
// record goes through trace_paths first, so no host root reaches the file.
// Thread-safe: actors on several scheduler threads append concurrently; a
// mutex orders the records and hands out `seq`. Recording must never change
// what the dispatcher does, so append never fails: the first write error is
// kept and reported by stop() (an io_error naming the file), and later
// records are dropped.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/trace/trace_format.hpp"
#include "runtime/trace/trace_paths.hpp"

namespace ad::runtime {

class trace_writer {
public:
  // Creates (truncates) file and writes the header line; io_error if the
  // file cannot be created. flush_bytes 0: every record at once.
  static result<std::shared_ptr<trace_writer>> open(const std::filesystem::path& file,
                                                    const trace_header& header, trace_paths paths,
                                                    std::size_t flush_bytes = 0);
  // A writer that keeps its records in memory instead of writing a file:
  // replay runs the recording actors against one and compares what they
  // record. No header; stop() ends recording.
  static std::shared_ptr<trace_writer> in_memory(trace_paths paths);
  ~trace_writer();
  trace_writer(const trace_writer&) = delete;
  trace_writer& operator=(const trace_writer&) = delete;

  // Appends an edge; returns its seq (0 once stopped).
  int64_t edge(std::string_view kind, const json& body);
  // Appends a decision caused by the edge `cause` (0: none); returns its seq.
  int64_t decision(std::string_view kind, int64_t cause, const json& body);

  // Appends an edge and the one decision it caused as two consecutive
  // records, so that no other actor's record comes between them (a trace
  // cut anywhere holds both or the edge last). Returns the edge's seq.
  int64_t edge_and_decision(std::string_view edge_kind, const json& edge_body,
                            std::string_view decision_kind, const json& decision_body);
  // Writes the buffer and closes the file; idempotent. Returns the first
  // write error, if any.
  status stop();

  int64_t records() const;
  // The records an in-memory writer kept, in seq order (empty otherwise).
  std::vector<trace_record> kept_records() const;
  // How many of those are edges.
  std::size_t kept_edges() const;
  const trace_paths& paths() const noexcept { return paths_; }

private:
  trace_writer(int fd, std::string file, trace_paths paths, std::size_t flush_bytes);
  int64_t append(trace_direction dir, std::string_view kind, int64_t cause, const json& body);
  // The same with mu_ held and the record prepared; cause < 0: the seq
  // appended just before.
  int64_t append_locked(trace_record r);
  void write_buffer_locked();

  mutable std::mutex mu_;
  int fd_ = -1;
  std::string file_;
  trace_paths paths_;
  std::size_t flush_bytes_;
  std::string buffer_;
  int64_t seq_ = 0;
  status error_;
  bool in_memory_ = false;
  std::vector<trace_record> kept_;
  std::size_t kept_edges_ = 0;
};

} // namespace ad::runtime
