#pragma once
// A workspace scanner whose first full scan starts on a thread of its own
// when it is made, so that the scan overlaps other start-up work: a run
// reads its durable state meanwhile, and at thousands of tasks the two take
// about as long as each other without depending on each other
// (docs/bench.md). The first refresh() waits for that scan and answers it
// joined with a refresh of what the scanner's watch saw since, so a change
// made between the early scan and the first refresh is not missed; later
// refreshes are the scanner's own.
//
// With `own_heap` the thread takes a heap of its own before the
// constructor returns (start_on_own_heap, runtime/core/heap_tuning.hpp):
// for a restart over a large state, whose reading on the main thread
// allocates as busily as the scan. Make the early scan before other threads
// start then. Without it the thread takes the heap glibc gives it, which
// held less memory over a long run (docs/bench.md, 2026-12-07).
//
// One owner. The thread touches only the scanner, and nothing reads the
// scanner before the first refresh has joined the thread.

#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "runtime/core/status.hpp"
#include "runtime/workspace/workspace_scanner.hpp"

namespace ad::runtime {

// One refresh that covers `earlier` followed by `later`: full when either
// was, and every name either changed (sorted, unique).
scan_refresh joined_refresh(const scan_refresh& earlier, const scan_refresh& later);

class early_scan {
public:
  early_scan(std::filesystem::path workspace, std::optional<std::string> group,
             scanner_watch mode = scanner_watch::inotify, bool own_heap = false);
  ~early_scan(); // waits for the scan when no refresh did
  early_scan(const early_scan&) = delete;
  early_scan& operator=(const early_scan&) = delete;

  // workspace_scanner::refresh; the first call waits for the early scan.
  // When the early scan failed, the first call is a refresh of its own (a
  // full scan again, whose error is the answer if it fails too).
  result<scan_refresh> refresh(const std::vector<std::filesystem::path>& also = {});
  // The scanner, for reading what the refreshes found; not before the
  // first refresh.
  const workspace_scanner& scanner() const { return scanner_; }

private:
  workspace_scanner scanner_;
  std::optional<result<scan_refresh>> first_;
  std::thread thread_;
};

} // namespace ad::runtime
