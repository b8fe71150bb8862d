#include "runtime/observe/state_reader.hpp"

#include "runtime/core/files.hpp"
#include "runtime/core/json.hpp"
#include "runtime/state/durable_store.hpp"
#include "runtime/state/lock.hpp"

namespace ad::runtime {
namespace {

namespace fs = std::filesystem;

class discard_append final : public append_file {
public:
  status append(std::string_view) override { return status::ok(); }
  status sync() override { return status::ok(); }
  status truncate(uint64_t) override { return status::ok(); }
};

class discard_overwrite final : public overwrite_file {
public:
  status write(std::string_view) override { return status::ok(); }
  status sync() override { return status::ok(); }
};

// Reads through the real layer; every write is dropped.
class read_only_layer final : public state_file_layer {
public:
  result<std::string> read(const fs::path& path) override { return real_->read(path); }
  result<file_text> read_replaced(const fs::path& path) override {
    return real_->read_replaced(path);
  }
  result<std::unique_ptr<append_file>> open_append(const fs::path&) override {
    return std::unique_ptr<append_file>(new discard_append());
  }
  result<std::unique_ptr<overwrite_file>> open_overwrite(const fs::path&) override {
    return std::unique_ptr<overwrite_file>(new discard_overwrite());
  }
  status replace(const fs::path&, std::string_view) override { return status::ok(); }
  status make_dirs(const fs::path&) override { return status::ok(); }

private:
  std::shared_ptr<state_file_layer> real_ = posix_file_layer();
};

constexpr int read_attempts = 3;

} // namespace

state_lock_record parse_lock_record(const std::string& text) {
  state_lock_record rec;
  auto j = parse_json(text, "lock");
  if (!j || !j->is_object() || !j->contains("pid"))
    return rec;
  const auto& o = *j;
  rec.present = true;
  // A field of another type reads as unknown (0), never as an exception.
  if (o.contains("pid") && o["pid"].is_number_integer())
    rec.pid = o["pid"].get<int64_t>();
  if (o.contains("start_token") && o["start_token"].is_string())
    rec.start_token = o["start_token"].get<std::string>();
  if (o.contains("started_at") && o["started_at"].is_number_integer())
    rec.started_at = o["started_at"].get<int64_t>();
  if (o.contains("version") && o["version"].is_string())
    rec.version = o["version"].get<std::string>();
  return rec;
}

result<unlocked_state> read_state_unlocked(const state_root& root, const std::string& workspace_path,
                                           const std::string& workspace_id) {
  unlocked_state out;
  if (auto text = read_file(root.path / lock_file_name, 1 << 16))
    out.lock = parse_lock_record(*text);
  out.exists = root.kind == state_root_kind::existing;
  if (!out.exists)
    return out;
  workspace_identity ws{workspace_path, workspace_id};
  status last = status::ok();
  for (int i = 0; i < read_attempts; ++i) {
    auto store = durable_store::open(root.path, ws, std::make_shared<read_only_layer>());
    if (store) {
      out.state = (*store)->release_state();
      out.seq = (*store)->last_seq();
      out.warnings = (*store)->report().warnings;
      return out;
    }
    last = store.error();
    if (last.is_invalid_argument())
      break;  // another workspace's state: retrying cannot help
  }
  return last;
}

} // namespace ad::runtime
