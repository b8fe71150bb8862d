#pragma once
// Pieces the per-CLI emitters share (tools/agent-sim/*_emitter.cpp): JSON
// dumping in insertion order, flushed line output, an append-only side file
// that remembers its write errors, local clock texts in the agent's time
// zone as the CLIs print them, and the constructors of each emitter. Internal
// to the simulator; nothing here throws.

#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/agent-sim/emitter.hpp"

namespace ad::agent_sim::detail {

using ojson = nlohmann::ordered_json;

inline std::string dump(const ojson& j) { return j.dump(-1, ' ', false, ojson::error_handler_t::replace); }

inline void line(std::ostream& os, const std::string& text) {
  os << text << '\n';
  os.flush();
}

// Appends lines to a side file, remembering failures.
class side_file {
public:
  void open(const std::string& path, std::vector<std::string>& errors) {
    path_ = path;
    errors_ = &errors;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    out_.open(path, std::ios::app | std::ios::binary);
    if (!out_) errors.push_back("cannot open " + path);
  }
  void write(const std::string& text) {
    if (!out_.is_open()) return;
    out_ << text << '\n';
    out_.flush();
    if (!out_ && errors_) errors_->push_back("cannot write " + path_);
  }
  bool is_open() const { return out_.is_open(); }
  const std::string& path() const { return path_; }

private:
  std::string path_;
  std::ofstream out_;
  std::vector<std::string>* errors_ = nullptr;
};

// "2s", "1.5s", "30s": seconds as the providers' texts write them.
std::string seconds_text(double seconds);
// The local time of t in the agent's zone as "YYYY-MM-DDTHH-MM-SS" (codex's
// rollout stamp) and its date folder "YYYY/MM/DD".
std::string local_file_stamp(runtime::millis t, const runtime::time_zone& zone);
std::string local_date_folder(runtime::millis t, const runtime::time_zone& zone);
// codex's usage-limit reset: "6:33 PM" on the same local day as now, else
// "Dec 4th, 2026 6:33 PM".
std::string codex_reset_text(runtime::millis reset, runtime::millis now, const runtime::time_zone& zone);
// claude's limit reset: "6:06pm (UTC)", "7pm (Asia/Seoul)".
std::string claude_reset_text(runtime::millis reset, const runtime::time_zone& zone, const std::string& zone_name);
// The seconds of a retry-after: the scenario's, else the capture's default.
double retry_after_or(const failure_report& f, double fallback);
// The N of a provider's "Please try again in Ns.": the scenario's
// retry-after, else the time until its resets_at, else the fallback.
double try_again_in(const failure_report& f, double fallback);

std::unique_ptr<emitter> make_codex_emitter(const emit_context& c, std::ostream& o, std::ostream& e);
std::unique_ptr<emitter> make_claude_emitter(const emit_context& c, std::ostream& o, std::ostream& e);
std::unique_ptr<emitter> make_pi_emitter(const emit_context& c, std::ostream& o, std::ostream& e);

} // namespace ad::agent_sim::detail
