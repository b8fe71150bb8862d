#include "runtime/state/durable_store.hpp"

#include <optional>

#include "runtime/core/exception_text.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/json_events.hpp"
#include "runtime/state/change_reader.hpp"
#include "runtime/state/journal.hpp"
#include "runtime/state/model_json.hpp"
#include "runtime/state/task_reader.hpp"

namespace ad::runtime {

namespace fs = std::filesystem;

namespace {

// How much of a snapshot's text is made before it is written.
constexpr std::size_t snapshot_part_bytes = 1u << 20;

json identity_json(const workspace_identity& w) { return json{{"path", w.path}, {"id", w.id}}; }

result<workspace_identity> identity_from(const json& j, const fs::path& file) {
  try {
    const auto& w = j.at("workspace");
    return workspace_identity{w.at("path").get<std::string>(), w.at("id").get<std::string>()};
  } catch (const std::exception& e) {
    return status::corruption(file.string() + ": missing or malformed workspace identity: "
                              + exception_text(e));
  }
}

constexpr uint64_t max_entry_seq = uint64_t{1} << 62;

const std::string what_to_do(state_root_fix);

// A snapshot's text parsed with its tasks read one at a time: `tree` is the
// snapshot without the tasks of state.tasks, each read into `tasks` by a
// task_reader, with no JSON tree of its own. One tree of a 10,000-task
// snapshot took 330 MB, and malloc half of `status`'s time; a tree per task,
// converted and freed, still took most of the parse. (nlohmann's callback
// parser would not do it: it walks the parent object at every object's end,
// quadratic in the tasks.) A task that is no object stays in the tree, for
// state_from_json to refuse in its own words.
struct parsed_snapshot {
  json tree;
  std::map<std::string, task_state> tasks;
};

class snapshot_reader final : public nlohmann::json_sax<json> {
public:
  using dom = nlohmann::detail::json_sax_dom_parser<json>;

  explicit snapshot_reader(std::string source) : source_(std::move(source)), outer_(out.tree) {}

  parsed_snapshot out;
  std::string failure;  // the first refusal; empty when the text was read

  bool null() override { return task_ ? in_task(task_->null()) : outer_.null(); }
  bool boolean(bool v) override { return task_ ? in_task(task_->boolean(v)) : outer_.boolean(v); }
  bool number_integer(json::number_integer_t v) override {
    return task_ ? in_task(task_->number_integer(v)) : outer_.number_integer(v);
  }
  bool number_unsigned(json::number_unsigned_t v) override {
    return task_ ? in_task(task_->number_unsigned(v)) : outer_.number_unsigned(v);
  }
  bool number_float(json::number_float_t v, const json::string_t& text) override {
    return task_ ? in_task(task_->number_float(v, text)) : outer_.number_float(v, text);
  }
  bool string(json::string_t& v) override {
    return task_ ? in_task(task_->string(v)) : outer_.string(v);
  }
  bool binary(json::binary_t& v) override {
    return task_ ? in_task(task_->binary(v)) : outer_.binary(v);
  }
  bool key(json::string_t& k) override {
    if (keys_.size() <= depth_)
      keys_.resize(depth_ + 1);
    keys_[depth_] = k;
    return task_ ? in_task(task_->key(k)) : outer_.key(k);
  }
  bool start_object(std::size_t n) override {
    if (!deeper())
      return false;
    if (!task_ && in_tasks()) {
      task_value_ = task_state{};
      task_.emplace(task_value_);
      task_name_ = keys_[3];
    }
    opened(true);
    return task_ ? in_task(task_->start_object(n)) : outer_.start_object(n);
  }
  bool end_object() override {
    closed();
    if (!task_)
      return outer_.end_object();
    if (!in_task(task_->end_object()))
      return false;
    if (depth_ == 3) {
      task_.reset();
      out.tasks.insert_or_assign(task_name_, std::move(task_value_));
    }
    return true;
  }
  bool start_array(std::size_t n) override {
    if (!deeper())
      return false;
    opened(false);
    return task_ ? in_task(task_->start_array(n)) : outer_.start_array(n);
  }
  bool end_array() override {
    closed();
    return task_ ? in_task(task_->end_array()) : outer_.end_array();
  }
  bool parse_error(std::size_t byte, const std::string&,
                   const nlohmann::detail::exception& e) override {
    failure = source_ + ": invalid JSON at byte " + std::to_string(byte) + ": " + exception_text(e);
    return false;
  }

private:
  bool in_task(bool read) {
    if (!read && failure.empty())
      failure = source_ + ": malformed state: task \"" + task_name_ + "\": " + task_->failure();
    return read;
  }
  // A member of state.tasks: inside three objects (the snapshot, "state",
  // "tasks"), whose keys are current because each is an object.
  bool in_tasks() const {
    return depth_ == 3 && object_[0] && object_[1] && object_[2] && keys_[1] == "state"
           && keys_[2] == "tasks";
  }
  void opened(bool object) {
    object_.push_back(object);
    ++depth_;
    if (keys_.size() <= depth_)
      keys_.resize(depth_ + 1);
    keys_[depth_].clear();
  }
  void closed() {
    object_.pop_back();
    --depth_;
  }
  // Refused before anything walks it recursively, as parse_json does.
  bool deeper() {
    if (depth_ + 1 <= json_max_depth)
      return true;
    failure = source_ + ": invalid JSON: nested deeper than " + std::to_string(json_max_depth)
              + " levels";
    return false;
  }

  std::string source_;
  dom outer_;
  std::optional<task_reader> task_;
  task_state task_value_;
  std::string task_name_;
  std::vector<std::string> keys_;  // keys_[d]: the latest key inside d open containers
  std::vector<bool> object_;       // object_[d]: the container d deep is an object
  std::size_t depth_ = 0;          // containers open
};

// The tasks are members of the snapshot's "state.tasks", three containers
// deep: simdjson checks and hands over one of them at a time.
constexpr std::size_t snapshot_piece_depth = 3;

result<parsed_snapshot> read_snapshot(snapshot_reader& reader) {
  if (!reader.failure.empty())
    return status::corruption(reader.failure + ". The snapshot is damaged. " + what_to_do);
  auto out = std::move(reader.out);
  // The tasks read leave a null member each in the tree; any other (a
  // task that is no object) stays.
  if (auto state = out.tree.find("state"); state != out.tree.end() && state->is_object())
    if (auto tasks = state->find("tasks"); tasks != state->end() && tasks->is_object())
      for (const auto& [name, task] : out.tasks)
        tasks->erase(name);
  return out;
}

result<parsed_snapshot> parse_snapshot(const file_text& text, const std::string& source) {
  // simdjson first (runtime/core/json_events.hpp). Text it does not take is
  // read again by nlohmann, whose messages say where and why; a refusal is
  // the reader's own, the same for both.
  try {
    snapshot_reader reader(source);
    auto fed = feed_json_events_in_pieces(text, snapshot_piece_depth, reader);
    if (fed == json_events::all || (fed == json_events::refused && !reader.failure.empty()))
      return read_snapshot(reader);
  } catch (const std::exception&) {
    // Read again below, where an exception is reported as the damage.
  }
  snapshot_reader reader(source);
  bool read = false;
  const auto view = text.view();
  try {
    read = json::sax_parse(view.begin(), view.end(), &reader);
  } catch (const std::exception& e) {
    if (reader.failure.empty())
      reader.failure = source + ": invalid JSON: " + exception_text(e);
  }
  if (!read && reader.failure.empty())
    reader.failure = source + ": invalid JSON";
  return read_snapshot(reader);
}

// "mark": this journal's writer keeps journal.mark, so a missing mark is
// damage; journals of earlier versions lack the key and are read without it.
std::string journal_header_payload(const workspace_identity& w, uint64_t base_seq) {
  return dump_json(json{{"format", state_format_version},
                        {"workspace", identity_json(w)},
                        {"base_seq", base_seq},
                        {"mark", true}});
}

} // namespace

std::uintmax_t stored_state_bytes(const fs::path& root) {
  std::uintmax_t total = 0;
  for (const char* name : {snapshot_file_name, journal_file_name}) {
    std::error_code ec;
    auto size = fs::file_size(root / name, ec);
    if (!ec)
      total += size;
  }
  return total;
}

result<std::unique_ptr<durable_store>> durable_store::open(const fs::path& root,
                                                           const workspace_identity& workspace,
                                                           std::shared_ptr<state_file_layer> files,
                                                           store_options options) {
  std::unique_ptr<durable_store> store(new durable_store());
  store->root_ = root;
  store->workspace_ = workspace;
  store->files_ = std::move(files);
  store->options_ = options;
  status st;
  try {
    st = store->load();
  } catch (const std::exception& e) {
    // A field of the wrong JSON type in a file that otherwise parsed.
    st = status::corruption("state in " + root.string() + " has a malformed field: " + exception_text(e)
                            + ". " + what_to_do);
  }
  if (!st)
    return st;
  return store;
}

status durable_store::load() {
  if (auto st = files_->make_dirs(root_); !st)
    return st;
  // The mark first: it is rewritten only after the journal's sync, so read
  // before the journal it never runs ahead of what a reader then sees.
  fs::path mark_path = root_ / mark_file_name;
  std::optional<uint64_t> mark;
  bool mark_present = false;
  if (auto text = files_->read(mark_path)) {
    // Empty: created, then the process died before the first write.
    mark_present = !text->empty();
    if (mark_present)
      mark = decode_mark(*text);
    if (mark_present && !mark)
      report_.warnings.push_back(
        "journal mark " + mark_path.string() + " is damaged (" + std::to_string(text->size())
        + " bytes); the check that no acknowledged entry is missing from the journal was "
          "skipped this time, and the mark is rewritten at the next commit");
  } else if (!text.error().is_not_found()) {
    return text.error();
  }
  // Snapshot.
  fs::path snap_path = root_ / snapshot_file_name;
  auto snap_text = files_->read_replaced(snap_path);
  if (snap_text) {
    auto parsed = parse_snapshot(*snap_text, snap_path.string());
    if (!parsed)
      return parsed.error();
    const json& j = parsed->tree;
    if (!j.is_object() || !j.contains("format") || !j["format"].is_number_integer()
        || j["format"].get<int64_t>() != state_format_version)
      return status::corruption(snap_path.string() + ": not a state snapshot of format "
                                + std::to_string(state_format_version) + ". " + what_to_do);
    auto id = identity_from(j, snap_path);
    if (!id)
      return id.error();
    if (auto st = check_workspace_identity(*id, workspace_, snap_path); !st)
      return st;
    auto seq = j.find("seq");
    auto st_it = j.find("state");
    if (seq == j.end() || !seq->is_number_unsigned() || st_it == j.end())
      return status::corruption(snap_path.string() + ": snapshot lacks seq or state. "
                                + what_to_do);
    if (!st_it->is_object())
      return status::corruption(snap_path.string() + ": the snapshot's \"state\" is "
                                + std::string(st_it->type_name()) + ", not an object. "
                                + what_to_do);
    auto model = state_from_json(*st_it, snap_path.string());
    if (!model)
      return status::corruption(model.error().message() + ". " + what_to_do);
    state_ = std::move(*model);
    if (state_.tasks.empty())
      state_.tasks = std::move(parsed->tasks);
    else
      for (auto& [name, task] : parsed->tasks)
        state_.tasks.insert_or_assign(name, std::move(task));
    last_seq_ = seq->get<uint64_t>();
    // One seq per group-commit entry: no state root reaches 2^62, and a seq
    // near 2^64 would wrap at the next commit and lose it on reload.
    if (last_seq_ > max_entry_seq)
      return status::corruption(snap_path.string() + ": the snapshot's seq "
                                + std::to_string(last_seq_)
                                + " is beyond any count of entries. " + what_to_do);
  } else if (!snap_text.error().is_not_found()) {
    return snap_text.error();
  }
  report_.snapshot_seq = last_seq_;

  // Journal.
  fs::path jpath = root_ / journal_file_name;
  auto jtext = files_->read(jpath);
  if (!jtext) {
    if (!jtext.error().is_not_found())
      return jtext.error();
    // A missing journal starts a new state only where none existed: beside
    // a snapshot, a mark or attempts of earlier runs it was lost, and
    // starting over would forget what ran (and could launch a second agent).
    if (auto st = check_missing_journal(root_); !st)
      return st;
    return start_new_journal();
  }
  auto scan = scan_journal(*jtext, jpath);
  if (!scan)
    return scan.error();
  if (scan->records.empty() || scan->records.front().type != journal_record_type::header)
    return status::corruption("state journal " + jpath.string()
                              + " does not begin with an intact header record at byte offset "
                                "0. "
                              + what_to_do);
  auto header = parse_json(scan->records.front().payload, jpath.string());
  if (!header)
    return status::corruption(header.error().message() + " (journal header at byte offset 0). "
                              + what_to_do);
  if (!header->is_object() || !(*header)["format"].is_number_integer() ||
      (*header)["format"].get<int64_t>() != state_format_version)
    return status::corruption("state journal " + jpath.string()
                              + ": the header at byte offset 0 is not of format "
                              + std::to_string(state_format_version)
                              + " (written by another version of agent-dispatch?). "
                              + what_to_do);
  auto id = identity_from(*header, jpath);
  if (!id)
    return id.error();
  if (auto st = check_workspace_identity(*id, workspace_, jpath); !st)
    return st;
  const json& base_field = (*header)["base_seq"];
  uint64_t base_seq = base_field.is_number_unsigned() ? base_field.get<uint64_t>() : 0;
  bool mark_kept = (*header)["mark"].is_boolean() && (*header)["mark"].get<bool>();
  if (base_seq > last_seq_)
    return status::corruption("state journal " + jpath.string() + " continues from entry "
                              + std::to_string(base_seq) + " but the snapshot ends at entry "
                              + std::to_string(last_seq_) + ": entries are missing. "
                              + what_to_do);
  for (size_t i = 1; i < scan->records.size(); ++i) {
    const auto& rec = scan->records[i];
    std::string where = jpath.string() + " at byte offset " + std::to_string(rec.offset);
    if (rec.type != journal_record_type::entry)
      return status::corruption("state journal " + where + ": unexpected header record. "
                                + what_to_do);
    auto entry = read_journal_entry(rec.payload, where, last_seq_);
    if (!entry)
      return status::corruption(entry.error().message() + ". " + what_to_do);
    uint64_t seq = entry->seq;
    if (seq <= last_seq_)
      continue;  // already folded into the snapshot
    if (seq != last_seq_ + 1)
      return status::corruption("state journal " + where + ": entry " + std::to_string(seq)
                                + " follows entry " + std::to_string(last_seq_) + ". "
                                + what_to_do);
    for (const auto& change : entry->changes)
      (void) apply_change(state_, change);  // rejected changes are rejected again: deterministic
    last_seq_ = seq;
    ++report_.replayed_entries;
  }
  if (mark_kept && !mark_present)
    return status::corruption("journal mark " + mark_path.string()
                              + " is missing, but the journal " + jpath.string()
                              + " was started with one: whether acknowledged entries are "
                                "missing from the journal cannot be checked. "
                              + what_to_do);
  if (auto st = check_mark(mark); !st)
    return st;
  auto handle = files_->open_append(jpath);
  if (!handle)
    return handle.error();
  journal_ = std::move(*handle);
  journal_bytes_ = scan->valid_bytes;
  if (scan->torn_bytes > 0) {
    report_.dropped_tail_bytes = scan->torn_bytes;
    report_.warnings.push_back("state journal " + jpath.string() + ": dropped a torn final record of "
                               + std::to_string(scan->torn_bytes) + " bytes at byte offset "
                               + std::to_string(scan->valid_bytes)
                               + " (a write cut short by a crash; it was never acknowledged)");
    if (auto st = journal_->truncate(scan->valid_bytes); !st)
      return st;
    ++stats_.syncs;
  }
  return status::ok();
}

status durable_store::check_mark(const std::optional<uint64_t>& mark) const {
  if (!mark || *mark <= last_seq_)
    return status::ok();
  fs::path jpath = root_ / journal_file_name;
  return status::corruption(
    "state journal " + jpath.string() + " ends at entry " + std::to_string(last_seq_)
    + ", but the journal mark " + (root_ / mark_file_name).string() + " records that entry "
    + std::to_string(*mark)
    + " was durable: acknowledged entries are missing (the journal was cut short or replaced by "
      "an older copy). "
    + what_to_do);
}

status durable_store::write_mark(bool sync) {
  if (!mark_) {
    auto handle = files_->open_overwrite(root_ / mark_file_name);
    if (!handle)
      return handle.error();
    mark_ = std::move(*handle);
  }
  if (auto st = mark_->write(encode_mark(last_seq_)); !st)
    return st;
  if (sync) {
    if (auto st = mark_->sync(); !st)
      return st;
    ++stats_.syncs;
  }
  return status::ok();
}

status durable_store::start_new_journal() {
  fs::path jpath = root_ / journal_file_name;
  journal_.reset();
  // The mark exists before a journal that says it is kept: synced here, its
  // name made durable by the directory sync of the replace below.
  if (auto st = write_mark(true); !st)
    return st;
  auto record = encode_record(journal_record_type::header,
                              journal_header_payload(workspace_, last_seq_));
  if (auto st = files_->replace(jpath, record); !st)
    return st;
  stats_.bytes_written += record.size();
  stats_.syncs += 2;
  auto handle = files_->open_append(jpath);
  if (!handle)
    return handle.error();
  journal_ = std::move(*handle);
  journal_bytes_ = record.size();
  return status::ok();
}

result<std::vector<entry_result>>
durable_store::commit(const std::vector<std::vector<state_change>>& entries) {
  if (!failed_)
    return failed_;
  if (!journal_)
    return status::internal("state journal is not open");
  std::string buffer;
  uint64_t seq = last_seq_;
  size_t change_count = 0;
  for (const auto& entry : entries) {
    json changes = json::array();
    for (const auto& c : entry)
      changes.push_back(change_to_json(c));
    change_count += entry.size();
    append_record(buffer, journal_record_type::entry,
                  dump_json(json{{"seq", ++seq}, {"changes", std::move(changes)}}));
  }
  if (auto st = journal_->append(buffer); !st) {
    failed_ = st.with_context("state journal write failed; state is read-only until restart");
    return failed_;
  }
  stats_.bytes_written += buffer.size();
  if (auto st = journal_->sync(); !st) {
    failed_ = st.with_context("state journal sync failed; state is read-only until restart");
    return failed_;
  }
  ++stats_.syncs;
  ++stats_.commits;
  stats_.entries += entries.size();
  stats_.changes += change_count;
  journal_bytes_ += buffer.size();

  std::vector<entry_result> out;
  out.reserve(entries.size());
  for (const auto& entry : entries) {
    entry_result r;
    r.seq = ++last_seq_;
    r.outcomes.reserve(entry.size());
    for (const auto& c : entry)
      r.outcomes.push_back(apply_change(state_, c));
    out.push_back(std::move(r));
  }
  // The commit is durable whatever happens from here on: a failed mark write
  // or compaction only makes the store refuse the next commit. The mark is
  // not synced per commit: it may lag the journal after a power loss (never
  // lead it), and after a crash of the process it is exact.
  if (auto st = write_mark(false); !st) {
    failed_ = st.with_context("state journal mark write failed; state is read-only until restart");
    return out;
  }
  if (journal_bytes_ > options_.compact_after_bytes)
    (void) compact();
  return out;
}

status durable_store::compact() {
  if (!failed_)
    return failed_;
  fs::path snap_path = root_ / snapshot_file_name;
  // The snapshot object's keys in their sorted order (format, seq, state,
  // workspace), the state written a part at a time as it is made: the
  // snapshot text is never whole in memory (for a large state it was the
  // run's peak).
  std::size_t bytes = 0;
  auto st = files_->replace_in_parts(snap_path, [&](const part_writer& write) {
    auto counted = [&](std::string_view part) {
      bytes += part.size();
      return write(part);
    };
    std::string head = "{\"format\":" + std::to_string(state_format_version)
                       + ",\"seq\":" + std::to_string(last_seq_) + ",\"state\":";
    if (auto st = counted(head); !st)
      return st;
    if (auto st = write_state_json_text(state_, snapshot_part_bytes, counted); !st)
      return st;
    return counted(",\"workspace\":" + dump_json(identity_json(workspace_)) + "}");
  });
  if (!st) {
    failed_ = st.with_context("state snapshot write failed; state is read-only until restart");
    return failed_;
  }
  stats_.bytes_written += bytes;
  stats_.syncs += 2;
  if (auto st = start_new_journal(); !st) {
    failed_ = st.with_context("new state journal could not be started; state is read-only "
                              "until restart");
    return failed_;
  }
  ++stats_.compactions;
  return status::ok();
}

} // namespace ad::runtime
