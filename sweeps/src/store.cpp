#include "vta/sweeps/store.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>
#include <sys/statfs.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <sstream>
#include <thread>

#include "vta/isa/error.h"
#include "vta/isa/io_guard.h"
#include "vta/isa/path_probe.h"
#include "vta/sweeps/metrics.h"
#include "vta/sweeps/wide.h"

namespace vta::sweeps {

namespace {

// The metric columns of `results` that schema version `version` added
// (metrics.def's column), in metrics.def order.
std::vector<std::string> metric_columns(int version) {
  std::vector<std::string> v;
  for (const MetricInfo& m : metrics())
    if (m.column == version) v.push_back(m.name);
  return v;
}

// The metric columns of versions 2 and later, in version order: appended
// after `finished`, as ALTER TABLE appends them, so a migrated store's tables
// have the same column order as a new one's (merge copies rows with SELECT *).
std::vector<std::string> later_metric_columns() {
  std::vector<std::string> v;
  for (int version = 2; version <= kSchemaVersion; ++version)
    for (auto& c : metric_columns(version)) v.push_back(std::move(c));
  return v;
}

// The layers table's columns (with energy_uj, since version 2). WITHOUT
// ROWID since version 3: the rows live in their primary key's B-tree, which
// before was a second copy of each key (a third of a store's bytes).
constexpr const char* kLayersTable = R"sql(
  point_key TEXT NOT NULL, stage INTEGER NOT NULL, layer INTEGER NOT NULL,
  name TEXT, op TEXT, device TEXT, macs INTEGER,
  cycles REAL, load REAL, gemm REAL, alu REAL, store REAL, stall REAL, dram_bytes REAL, energy_uj REAL,
  PRIMARY KEY(point_key, stage, layer))sql";

std::string schema() {
  std::string results_v1, results_later;
  for (const auto& c : metric_columns(1)) results_v1 += fmt::format("{} REAL, ", c);
  for (const auto& c : later_metric_columns()) results_later += fmt::format(", {} REAL", c);
  return fmt::format(R"sql(
CREATE TABLE IF NOT EXISTS sweep(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  name TEXT NOT NULL, spec TEXT NOT NULL, spec_source TEXT NOT NULL,
  tool TEXT NOT NULL, created TEXT NOT NULL, schema_version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS points(
  point_key TEXT PRIMARY KEY, idx INTEGER NOT NULL, network TEXT NOT NULL,
  config_hash TEXT, knobs TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results(
  point_key TEXT NOT NULL, stage INTEGER NOT NULL, stage_name TEXT NOT NULL,
  status TEXT NOT NULL, error TEXT, verify_status TEXT,
  {}metrics TEXT NOT NULL, wall_s REAL, finished TEXT NOT NULL{},
  PRIMARY KEY(point_key, stage));
CREATE TABLE IF NOT EXISTS layers({}) WITHOUT ROWID;
)sql",
                     results_v1, results_later, kLayersTable);
}

// From schema version `version` - 1 to `version`: the metric columns of that
// version, appended; version 2 also gave layers their energy, version 3
// renamed the column `check` (an SQL keyword) to verify_status and made
// layers a WITHOUT ROWID table (copied over).
std::string migration_to(int version) {
  std::string sql;
  if (version == 3)
    sql += fmt::format(
        "ALTER TABLE results RENAME COLUMN \"check\" TO verify_status;\n"
        "CREATE TABLE layers_v3({}) WITHOUT ROWID;\nINSERT INTO layers_v3 SELECT * FROM layers;\n"
        "DROP TABLE layers;\nALTER TABLE layers_v3 RENAME TO layers;\n",
        kLayersTable);
  for (const auto& c : metric_columns(version)) sql += fmt::format("ALTER TABLE results ADD COLUMN {} REAL;\n", c);
  if (version == 2) sql += "ALTER TABLE layers ADD COLUMN energy_uj REAL;\n";
  sql += fmt::format("UPDATE sweep SET schema_version = {} WHERE id = 1;\n", version);
  return sql;
}

// A JSON object column of a row (a result's metrics: numbers; a point's
// knobs: the axis values as strings, as the runner writes them): a
// store edited or damaged outside vta is named with the row, never with
// nlohmann's own message (SweepStoreErrors.DamagedJsonColumnsAreNamed).
nlohmann::json json_object_column(const std::string& text, const std::string& path, const std::string& row,
                                  const char* column, bool numbers_only) {  // else strings only
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    fail("{}: damaged results store: {} {} is not a JSON object", path, row, column);
  for (auto it = j.begin(); it != j.end(); ++it)
    if (numbers_only ? !it.value().is_number() : !it.value().is_string())
      fail("{}: damaged results store: {} {} '{}' is not a {}", path, row, column, it.key(),
           numbers_only ? "number" : "string");
  return j;
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

namespace {

// The store's database: read-write (created when `create`); a store that
// cannot be written (a read-only file or mount, another user's file) is
// opened read-only for the commands that only read it, and as an immutable
// file when SQLite cannot even create its WAL index beside it.
std::unique_ptr<SQLite::Database> open_database(const std::string& path, bool create) {
  try {
    return std::make_unique<SQLite::Database>(path, SQLite::OPEN_READWRITE | (create ? SQLite::OPEN_CREATE : 0), 30000);
  } catch (const SQLite::Exception& e) {
    const int code = e.getErrorCode() & 0xff;
    if (create || (code != SQLITE_CANTOPEN && code != SQLITE_READONLY && code != SQLITE_PERM)) throw;
  }
  try {
    auto db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READONLY, 30000);
    SQLite::Statement q(*db, "SELECT count(*) FROM sqlite_master");
    q.executeStep();
    return db;
  } catch (const SQLite::Exception&) {
  }
  std::string uri = "file:";
  for (const char c : path)
    uri += c == '?'   ? std::string("%3f")
           : c == '#' ? std::string("%23")
           : c == '%' ? std::string("%25")
                      : std::string(1, c);
  return std::make_unique<SQLite::Database>(uri + "?immutable=1", SQLite::OPEN_READONLY | SQLITE_OPEN_URI, 30000);
}

// SQLite's WAL mode needs shared memory between the processes that open
// the store, which network file systems do not give (sqlite.org/wal.html):
// there the store keeps a rollback journal. VTA_SWEEP_JOURNAL=wal|delete
// overrides the choice.
const char* journal_mode(const std::string& path) {
  if (const char* forced = std::getenv("VTA_SWEEP_JOURNAL")) {
    const std::string f = forced;
    if (f == "wal") return "WAL";
    if (f == "delete") return "DELETE";
    fail("VTA_SWEEP_JOURNAL={}: give wal or delete", f);
  }
  return on_network_file_system(path) ? "DELETE" : "WAL";
}

// How many of the four tables the store has.
int count_tables(SQLite::Database& db) {
  SQLite::Statement q(db, "SELECT count(*) FROM sqlite_master WHERE name IN ('sweep','points','results','layers')");
  q.executeStep();
  return q.getColumn(0).getInt();
}

// SQLite's own check of the store's pages and indexes.
void check_pages(SQLite::Database& db, const std::string& path) {
  SQLite::Statement q(db, "PRAGMA quick_check(1)");
  if (!q.executeStep()) return;
  const std::string r = q.getColumn(0).getString();
  if (r != "ok") fail("{}: damaged results store: {}", path, r);
}

}  // namespace

struct Store::Impl {
  std::unique_ptr<SQLite::Database> db;
  // put_many's statements, prepared once (after db: destroyed before it).
  std::unique_ptr<SQLite::Statement> point, result, layer;
};

Store::Store(const std::string& path, bool create) : impl_(std::make_unique<Impl>()), path_(path) {
  if (!create && !path_exists(path)) fail("{}: no such results store", path);
  // A store opened to read is an input of the command: no output may replace
  // it (io_guard.h). One opened to create or extend must not be another input.
  if (create)
    check_output(path, "results store");
  else
    note_input(path, "results store");
  try {
    impl_->db = open_database(path, create);
    const bool read_only = sqlite3_db_readonly(impl_->db->getHandle(), "main") == 1;
    if (create && read_only) fail("{}: the results store is read-only", path);
    // Damage is found when the store is opened, by every command: a store
    // that SQLite finds damaged, or that lost one of its tables (which the
    // schema below would otherwise create anew, empty), is refused.
    check_pages(*impl_->db, path);
    const int tables = count_tables(*impl_->db);
    if (tables != 0 && tables != 4)
      fail("{}: damaged results store: {} of its 4 tables (sweep, points, results, layers) are missing", path,
           4 - tables);
    // Test hook: a store that fills up after N pages, as a full disk does.
    if (const char* pages = std::getenv("VTA_SWEEP_DB_MAX_PAGES"))
      impl_->db->exec(fmt::format("PRAGMA max_page_count={}", std::atoll(pages)));
    // Two processes opening a new store at once: switching it to WAL and
    // creating the schema take the write lock, and SQLite answers BUSY at once
    // (without its busy handler) where waiting could deadlock, so retry.
    const char* journal = journal_mode(path);
    for (int attempt = 0; !read_only; ++attempt) {
      try {
        impl_->db->exec(std::string("PRAGMA journal_mode=") + journal);
        if (create) impl_->db->exec("BEGIN IMMEDIATE;" + schema() + "COMMIT;");
        break;
      } catch (const SQLite::Exception& e) {
        const int code = e.getErrorCode() & 0xff;
        if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || attempt >= 3000) throw;
        if (sqlite3_get_autocommit(impl_->db->getHandle()) == 0) impl_->db->exec("ROLLBACK");
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    if (!read_only) impl_->db->exec("PRAGMA synchronous=NORMAL");
    // A million points' keys in B-trees written in hash order: a page cache
    // of up to 256 MiB (SQLite's default is 2 MiB) keeps their inner pages.
    impl_->db->exec("PRAGMA cache_size=-262144");
    if (!read_only && std::string_view(journal) == "WAL") {  // not on a network file system
      // Those inserts dirty a page of each key's B-tree per row or so: a
      // checkpoint every 64 MiB of WAL (SQLite's default: 4 MiB) writes a
      // page rewritten by several batches once. Pages are read through a
      // mapping, not copied by a read() each.
      impl_->db->exec("PRAGMA wal_autocheckpoint=16384");
      impl_->db->exec("PRAGMA mmap_size=1073741824");
    }
    if (count_tables(*impl_->db) != 4) fail("{}: not a vta sweep results store", path);
  } catch (const SQLite::Exception& e) {
    fail("{}: cannot open the results store: {}", path, e.what());
  }
  if (auto i = info(); i && i->schema_version >= 1 && i->schema_version < kSchemaVersion)
    migrate_from(i->schema_version);
  if (auto i = info(); i && i->schema_version != kSchemaVersion)
    fail("{}: results store of schema version {}, this vta reads version {}", path, i->schema_version, kSchemaVersion);
  if (sqlite3_db_readonly(impl_->db->getHandle(), "main") != 1) ensure_wide_view();
  // Every row's JSON columns, before anything is taken from the store: a
  // resumed sweep would otherwise count damaged rows as done, and a merge
  // would copy them.
  (void)load(false);
}

Store::~Store() = default;

bool on_network_file_system(const std::string& path) {
  struct statfs st {};
  std::filesystem::path p = std::filesystem::absolute(path);
  while (!p.empty() && ::statfs(p.c_str(), &st) != 0) {
    if (p == p.parent_path()) return false;
    p = p.parent_path();
  }
  if (p.empty()) return false;
  switch (static_cast<unsigned long>(st.f_type)) {
    case 0x6969:      // NFS
    case 0x0BD00BD0:  // Lustre
    case 0x47504653:  // GPFS
    case 0xFF534D42:  // CIFS
    case 0xFE534D42:  // SMB2
    case 0x19830326:  // BeeGFS
    case 0x65735546:  // FUSE (sshfs and other remote mounts)
    case 0x013111A8:  // IBRIX
    case 0x00C36400:  // Ceph
      return true;
    default:
      return false;
  }
}

bool store_created(const std::string& path) {
  if (!path_exists(path)) return false;
  try {
    const SQLite::Database db(path, SQLite::OPEN_READWRITE, 30000);
    SQLite::Statement q(db, "SELECT count(*) FROM sqlite_master");
    return !q.executeStep() || q.getColumn(0).getInt() > 0;
  } catch (const SQLite::Exception&) {
    return true;  // not SQLite, or unreadable: Store says which when it opens it
  }
}

void Store::migrate_from(int version) {
  try {
    SQLite::Transaction t(*impl_->db, SQLite::TransactionBehavior::IMMEDIATE);
    // Re-read inside the transaction: another process may have migrated it
    // meanwhile. (The statement ends before the migration: DROP TABLE waits
    // for no reader.)
    const int now = [&] {
      SQLite::Statement q(*impl_->db, "SELECT schema_version FROM sweep WHERE id = 1");
      return q.executeStep() ? q.getColumn(0).getInt() : kSchemaVersion;
    }();
    for (int v = now + 1; v <= kSchemaVersion; ++v) impl_->db->exec(migration_to(v));
    t.commit();
  } catch (const SQLite::Exception& e) {
    fail("{}: results store of schema version {} cannot be upgraded to version {}: {}", path_, version, kSchemaVersion,
         e.what());
  }
}

std::optional<SweepInfo> Store::info() const {
  try {
    SQLite::Statement q(*impl_->db,
                        "SELECT name, spec, spec_source, tool, created, schema_version FROM sweep WHERE id = 1");
    if (!q.executeStep()) return std::nullopt;
    SweepInfo i;
    i.name = q.getColumn(0).getString();
    i.spec_text = q.getColumn(1).getString();
    i.spec_source = q.getColumn(2).getString();
    i.tool = q.getColumn(3).getString();
    i.created = q.getColumn(4).getString();
    i.schema_version = q.getColumn(5).getInt();
    return i;
  } catch (const SQLite::Exception& e) {
    fail("{}: cannot read the results store: {}", path_, e.what());
  }
}

namespace {

// The stored spec, its base resolved against the spec's folder; nullopt when
// it no longer loads (its base file moved, say).
std::optional<SweepSpec> stored_spec(const SweepInfo& stored) {
  try {
    const std::string dir = std::filesystem::path(stored.spec_source).parent_path().string();
    return load_spec_text(stored.spec_text, stored.spec_source, dir.empty() ? "." : dir);
  } catch (const vta::Error&) {
    return std::nullopt;
  }
}

// Networks part of result_basis(): one line per network, its key first.
std::map<std::string, std::string> network_lines(const std::string& part) {
  std::map<std::string, std::string> out;
  std::istringstream in(part);
  for (std::string line; std::getline(in, line);) out[line.substr(0, line.find(' '))] = line;
  return out;
}

// The first part of result_basis() in which the stored spec and `spec`
// differ and which changes stored results ("the spec" when the stored one
// no longer loads; "" when none), noting in `edit` the parts of a grid's
// space that changed: its axes, constraints and networks (a network that is
// in both must be the same, and a network's key names all but its accuracy
// inputs). A random or evolve search draws its points from the space, so
// any change of it is another search.
std::string changed_part(const SweepInfo& stored, const SweepSpec& spec, Store::Edit& edit) {
  const auto spec_before = stored_spec(stored);
  if (!spec_before) return "the spec";
  const auto before = result_basis(*spec_before);
  const auto after = result_basis(spec);
  const bool grid = spec.strategy == Strategy::Grid && spec_before->strategy == Strategy::Grid;
  for (size_t k = 0; k < before.size(); ++k) {
    const std::string& part = before[k].first;
    if (before[k].second == after[k].second) continue;
    if (!grid) return part;
    if (part == "axes") {
      edit.space = true;
    } else if (part == "constraints") {
      edit.constraints = true;
    } else if (part == "networks") {
      const auto was = network_lines(before[k].second), now = network_lines(after[k].second);
      for (const auto& [key, line] : now)
        if (auto it = was.find(key); it != was.end() && it->second != line) return part;
      edit.space = true;
    } else {
      return part;
    }
  }
  return "";
}

}  // namespace

Store::Edit Store::begin(const SweepSpec& spec, const std::string& tool) {
  Edit edit;
  if (auto i = info()) {
    if (i->spec_text == spec.text) return edit;
    if (const std::string part = changed_part(*i, spec, edit); !part.empty())
      fail("{}: holds sweep '{}' of another spec ({}; '{}' differs); resume it with that spec, or use another --db",
           path_, i->name, i->spec_source, part);
    edit.edited = true;
    // An edited space is taken once the run has placed every point in it (adopt).
    if (!edit.space && !edit.constraints) adopt(spec, false);
    return edit;
  }
  try {
    SQLite::Statement q(*impl_->db,
                        "INSERT OR IGNORE INTO sweep(id, name, spec, spec_source, tool, created, schema_version) "
                        "VALUES (1, ?, ?, ?, ?, ?, ?)");
    q.bind(1, spec.name);
    q.bind(2, spec.text);
    q.bind(3, spec.source);
    q.bind(4, tool);
    q.bind(5, now_utc());
    q.bind(6, kSchemaVersion);
    q.exec();
  } catch (const SQLite::Exception& e) {
    fail("{}: cannot write the results store: {}", path_, e.what());
  }
  if (auto i = info(); i && i->spec_text != spec.text)  // another process began it first
    fail("{}: holds sweep '{}' of another spec ({})", path_, i->name, i->spec_source);
  ensure_wide_view();
  return edit;
}

void Store::adopt(const SweepSpec& spec, bool space) {
  try {
    SQLite::Transaction t(*impl_->db, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement q(*impl_->db, "UPDATE sweep SET name = ?, spec = ?, spec_source = ? WHERE id = 1");
    q.bind(1, spec.name);
    q.bind(2, spec.text);
    q.bind(3, spec.source);
    q.exec();
    // The wide view maps the spec's knob spellings: made anew for edited axes.
    if (space) impl_->db->exec("DROP VIEW IF EXISTS points_wide");
    t.commit();
  } catch (const SQLite::Exception& e) {
    fail("{}: cannot write the results store: {}", path_, e.what());
  }
  if (space) ensure_wide_view();
}

std::optional<SweepSpec> Store::spec() const {
  const auto i = info();
  return i ? stored_spec(*i) : std::nullopt;
}

void Store::ensure_wide_view() {
  auto has_view = [&] {
    SQLite::Statement q(*impl_->db, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'points_wide'");
    q.executeStep();
    return q.getColumn(0).getInt() > 0;
  };
  try {
    if (has_view()) return;
    const auto s = spec();
    if (!s) return;  // wide() reads the knobs as stored
    const std::string create = "CREATE VIEW IF NOT EXISTS points_wide AS " + wide_select(&*s, {});
    // Another process may be writing (two runners starting on one store):
    // take the write lock first, and retry where SQLite answers BUSY at once.
    for (int attempt = 0;; ++attempt) {
      try {
        impl_->db->exec("BEGIN IMMEDIATE");
        impl_->db->exec(create);
        impl_->db->exec("COMMIT");
        return;
      } catch (const SQLite::Exception& e) {
        const int code = e.getErrorCode() & 0xff;
        if (sqlite3_get_autocommit(impl_->db->getHandle()) == 0) impl_->db->exec("ROLLBACK");
        if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || attempt >= 3000) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  } catch (const SQLite::Exception& e) {
    fail("{}: cannot write the results store: {}", path_, e.what());
  }
}

Store::Table Store::wide() const {
  Table t;
  try {
    std::string select = "SELECT * FROM points_wide";
    SQLite::Statement has(*impl_->db,
                          "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'points_wide'");
    has.executeStep();
    if (has.getColumn(0).getInt() == 0) {
      const auto i = info();
      const auto spec = i ? stored_spec(*i) : std::nullopt;
      std::vector<std::string> keys;
      if (!spec) {
        SQLite::Statement k(*impl_->db, "SELECT knobs FROM points ORDER BY idx LIMIT 1");
        if (k.executeStep()) {
          const auto j = nlohmann::ordered_json::parse(k.getColumn(0).getString());
          for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
        }
      }
      select = wide_select(spec ? &*spec : nullptr, keys);
    }
    std::vector<std::string> others;  // metrics beyond metrics.def and the estimate's columns
    SQLite::Statement keys(*impl_->db,
                           "SELECT DISTINCT j.key FROM results, json_each(results.metrics) AS j ORDER BY 1");
    while (keys.executeStep())
      if (const std::string k = keys.getColumn(0).getString(); !is_metric(k)) others.push_back(k);
    // Not the points an edit of the space left out (mark_outside).
    select = fmt::format("SELECT * FROM ({}) WHERE idx >= 0 ORDER BY idx, network, stage", select);
    SQLite::Statement q(*impl_->db, with_other_metrics(select, others));
    for (int c = 0; c < q.getColumnCount(); ++c) t.columns.emplace_back(q.getColumnName(c));
    while (q.executeStep()) {
      auto& row = t.rows.emplace_back();
      for (int c = 0; c < q.getColumnCount(); ++c) {
        const SQLite::Column v = q.getColumn(c);
        if (v.isNull())
          row.emplace_back(nullptr);
        else if (v.isInteger())
          row.emplace_back(v.getInt64());
        else if (v.isFloat())
          row.emplace_back(v.getDouble());
        else
          row.emplace_back(v.getString());
      }
    }
  } catch (const SQLite::Exception& e) {
    fail("{}: cannot read the results store: {}", path_, e.what());
  }
  return t;
}

void Store::put(const PointInfo& p, const StageResult& r) { put_many({{p, r}}); }

namespace {

// A result's metrics as the store's JSON column: the text nlohmann's dump of
// the object gives (metric names are unique), without building the object
// or a serializer per value (stage 0 writes a million rows): a name of
// plain word characters as itself, any other as nlohmann escapes it; a
// number as nlohmann's serializer writes a double (to_chars; null when not
// finite).
std::string metrics_json(const Metrics& m) {
  std::string out = "{";
  char number[64];
  for (const auto& [k, v] : m.values) {
    if (out.size() > 1) out += ',';
    const bool plain = std::all_of(k.begin(), k.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (plain)
      out.append("\"").append(k).append("\"");
    else
      out += nlohmann::json(k).dump();
    out += ':';
    if (std::isfinite(v))
      out.append(number, nlohmann::detail::to_chars(number, number + sizeof number, v));
    else
      out += "null";
  }
  return out + "}";
}

// The results columns by name, in the table's order, and their count.
std::pair<std::string, size_t> result_columns() {
  const std::vector<std::string> v1 = metric_columns(1), later = later_metric_columns();
  std::string cols = "point_key, stage, stage_name, status, error, verify_status";
  for (const auto& c : v1) cols += ", " + c;
  cols += ", metrics, wall_s, finished";
  for (const auto& c : later) cols += ", " + c;
  return {cols, 6 + v1.size() + 3 + later.size()};
}

}  // namespace

void Store::put_many(const std::vector<std::pair<PointInfo, StageResult>>& rows) {
  if (rows.empty()) return;
  try {
    SQLite::Transaction t(*impl_->db);
    if (!impl_->point) {
      impl_->point = std::make_unique<SQLite::Statement>(*impl_->db,
                                                         "INSERT OR IGNORE INTO points(point_key, idx, network, "
                                                         "config_hash, knobs) VALUES (?, ?, ?, ?, ?)");
      const auto [cols, n] = result_columns();
      std::string marks = "?";
      for (size_t i = 1; i < n; ++i) marks += ", ?";
      impl_->result = std::make_unique<SQLite::Statement>(
          *impl_->db, fmt::format("INSERT OR IGNORE INTO results({}) VALUES ({})", cols, marks));
      impl_->layer = std::make_unique<SQLite::Statement>(
          *impl_->db,
          "INSERT OR IGNORE INTO layers(point_key, stage, layer, name, op, device, macs, cycles, load, "
          "gemm, alu, store, stall, dram_bytes, energy_uj) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    }
    SQLite::Statement& pq = *impl_->point;
    SQLite::Statement& rq = *impl_->result;
    SQLite::Statement& lq = *impl_->layer;
    static const std::vector<std::string> v1 = metric_columns(1), later = later_metric_columns();
    const std::string finished = now_utc();
    for (const auto& [p, r] : rows) {
      pq.bind(1, p.key);
      pq.bind(2, static_cast<int64_t>(p.index));
      pq.bind(3, p.network);
      if (p.config_hash.empty())
        pq.bind(4);
      else
        pq.bind(4, p.config_hash);
      pq.bind(5, p.knobs);
      pq.exec();
      pq.reset();
      rq.bind(1, p.key);
      rq.bind(2, r.stage);
      rq.bind(3, stage_name(r.stage));
      rq.bind(4, r.status);
      if (r.error.empty())
        rq.bind(5);
      else
        rq.bind(5, r.error);
      if (r.check.empty())
        rq.bind(6);
      else
        rq.bind(6, r.check);
      int col = 7;
      const StageResult& res = r;  // a lambda may not name a structured binding (clang before 16)
      auto bind_metric = [&](const std::string& m) {
        if (const double v = res.metrics.get(m); std::isnan(v))
          rq.bind(col++);
        else
          rq.bind(col++, v);
      };
      for (const auto& m : v1) bind_metric(m);
      rq.bind(col++, metrics_json(r.metrics));
      rq.bind(col++, r.wall_s);
      rq.bind(col++, finished);
      for (const auto& m : later) bind_metric(m);
      rq.exec();
      rq.reset();
      for (size_t i = 0; i < r.layers.size(); ++i) {
        const LayerRow& l = r.layers[i];
        lq.bind(1, p.key);
        lq.bind(2, r.stage);
        lq.bind(3, static_cast<int64_t>(i));
        lq.bind(4, l.name);
        lq.bind(5, l.op);
        lq.bind(6, l.device);
        lq.bind(7, static_cast<int64_t>(l.macs));
        lq.bind(8, l.cycles);
        lq.bind(9, l.load);
        lq.bind(10, l.gemm);
        lq.bind(11, l.alu);
        lq.bind(12, l.store);
        lq.bind(13, l.stall);
        lq.bind(14, l.dram_bytes);
        if (l.energy_uj < 0)
          lq.bind(15);
        else
          lq.bind(15, l.energy_uj);
        lq.exec();
        lq.reset();
      }
    }
    t.commit();
  } catch (const SQLite::Exception& e) {
    // The prepared statements, ready for the next call (a reset repeats a
    // failed step's error, already reported here).
    for (auto* q : {impl_->point.get(), impl_->result.get(), impl_->layer.get()})
      if (q) q->tryReset();
    fail("{}: cannot write the results store: {} (nothing of these {} results was written)", path_, e.what(),
         rows.size());
  }
}

void Store::renumber(const std::vector<PointInfo>& points) {
  if (points.empty()) return;
  try {
    SQLite::Transaction t(*impl_->db);
    SQLite::Statement q(*impl_->db, "UPDATE points SET idx = ?, knobs = ? WHERE point_key = ?");
    for (const auto& p : points) {
      q.bind(1, static_cast<int64_t>(p.index));
      q.bind(2, p.knobs);
      q.bind(3, p.key);
      q.exec();
      q.reset();
    }
    t.commit();
  } catch (const SQLite::Exception& e) {
    fail("{}: cannot write the results store: {}", path_, e.what());
  }
}

void Store::replace(const std::vector<std::pair<PointInfo, StageResult>>& rows) {
  if (rows.empty()) return;
  try {
    {
      SQLite::Transaction t(*impl_->db);
      SQLite::Statement r(*impl_->db, "DELETE FROM results WHERE point_key = ? AND stage >= ?");
      SQLite::Statement l(*impl_->db, "DELETE FROM layers WHERE point_key = ? AND stage >= ?");
      for (const auto& [p, res] : rows)
        for (SQLite::Statement* q : {&r, &l}) {
          q->bind(1, p.key);
          q->bind(2, res.stage);
          q->exec();
          q->reset();
        }
      t.commit();
    }
  } catch (const SQLite::Exception& e) {
    fail("{}: cannot write the results store: {}", path_, e.what());
  }
  put_many(rows);
}

void Store::mark_outside(const std::vector<std::string>& keys) {
  try {
    SQLite::Transaction t(*impl_->db);
    impl_->db->exec("CREATE TEMP TABLE IF NOT EXISTS space_keys(point_key TEXT PRIMARY KEY) WITHOUT ROWID");
    impl_->db->exec("DELETE FROM temp.space_keys");
    {
      SQLite::Statement q(*impl_->db, "INSERT OR IGNORE INTO temp.space_keys VALUES (?)");
      for (const auto& k : keys) {
        q.bind(1, k);
        q.exec();
        q.reset();
      }
    }
    impl_->db->exec(
        "UPDATE points SET idx = -1 WHERE idx >= 0 AND point_key NOT IN (SELECT point_key FROM temp.space_keys)");
    impl_->db->exec("DELETE FROM temp.space_keys");
    t.commit();
  } catch (const SQLite::Exception& e) {
    fail("{}: cannot write the results store: {}", path_, e.what());
  }
}

int64_t Store::merge_from(const std::string& other) {
  const Store src(other, false);
  const auto theirs = src.info();
  if (!theirs) return 0;
  if (const auto mine = info(); mine && mine->spec_text != theirs->spec_text)
    fail("{}: holds sweep '{}' of another spec ({}) than {} ({})", other, theirs->name, theirs->spec_source, path_,
         mine->spec_source);
  try {
    SQLite::Statement attach(*impl_->db, "ATTACH DATABASE ? AS src");
    attach.bind(1, other);
    attach.exec();
    int64_t added = 0;
    {
      SQLite::Transaction t(*impl_->db);
      for (const char* table : {"sweep", "points", "results", "layers"})
        added += impl_->db->exec(fmt::format("INSERT OR IGNORE INTO main.{0} SELECT * FROM src.{0}", table));
      t.commit();
    }
    impl_->db->exec("DETACH DATABASE src");
    ensure_wide_view();
    return added;
  } catch (const SQLite::Exception& e) {
    try {
      impl_->db->exec("DETACH DATABASE src");
    } catch (const SQLite::Exception&) {
    }
    fail("{}: cannot merge {}: {}", path_, other, e.what());
  }
}

std::map<std::string, std::map<int, StageResult>> Store::results(bool with_layers) const {
  std::map<std::string, std::map<int, StageResult>> out;
  try {
    SQLite::Statement q(*impl_->db,
                        "SELECT point_key, stage, status, error, verify_status, metrics, wall_s FROM results");
    while (q.executeStep()) {
      StageResult r;
      r.stage = q.getColumn(1).getInt();
      r.status = q.getColumn(2).getString();
      r.error = q.getColumn(3).isNull() ? "" : q.getColumn(3).getString();
      r.check = q.getColumn(4).isNull() ? "" : q.getColumn(4).getString();
      const auto mj =
          json_object_column(q.getColumn(5).getString(), path_,
                             fmt::format("point {} stage {}", q.getColumn(0).getString(), r.stage), "metrics", true);
      for (auto it = mj.begin(); it != mj.end(); ++it)
        r.metrics.values.emplace_back(it.key(), it.value().get<double>());
      r.wall_s = q.getColumn(6).getDouble();
      out[q.getColumn(0).getString()][r.stage] = std::move(r);
    }
    if (with_layers) {
      SQLite::Statement l(*impl_->db,
                          "SELECT point_key, stage, name, op, device, macs, cycles, load, gemm, alu, store, stall, "
                          "dram_bytes, energy_uj FROM layers ORDER BY point_key, stage, layer");
      while (l.executeStep()) {
        auto& r = out[l.getColumn(0).getString()][l.getColumn(1).getInt()];
        r.layers.push_back(LayerRow{l.getColumn(2).getString(), l.getColumn(3).getString(), l.getColumn(4).getString(),
                                    l.getColumn(5).getInt64(), l.getColumn(6).getDouble(), l.getColumn(7).getDouble(),
                                    l.getColumn(8).getDouble(), l.getColumn(9).getDouble(), l.getColumn(10).getDouble(),
                                    l.getColumn(11).getDouble(), l.getColumn(12).getDouble(),
                                    l.getColumn(13).isNull() ? -1.0 : l.getColumn(13).getDouble()});
      }
    }
  } catch (const SQLite::Exception& e) {
    fail("{}: cannot read the results store: {}", path_, e.what());
  }
  return out;
}

std::vector<StoredPoint> Store::load(bool with_layers) const {
  auto res = results(with_layers);
  std::vector<StoredPoint> out;
  try {
    SQLite::Statement q(*impl_->db,
                        "SELECT point_key, idx, network, config_hash, knobs FROM points WHERE idx >= 0 "
                        "ORDER BY idx, network");
    while (q.executeStep()) {
      StoredPoint p;
      p.info.key = q.getColumn(0).getString();
      p.info.index = q.getColumn(1).getInt64();
      p.info.network = q.getColumn(2).getString();
      p.info.config_hash = q.getColumn(3).isNull() ? "" : q.getColumn(3).getString();
      p.info.knobs = q.getColumn(4).getString();
      json_object_column(p.info.knobs, path_, "point " + p.info.key, "knobs", false);
      if (auto it = res.find(p.info.key); it != res.end()) p.stages = std::move(it->second);
      out.push_back(std::move(p));
    }
  } catch (const SQLite::Exception& e) {
    fail("{}: cannot read the results store: {}", path_, e.what());
  }
  return out;
}

}  // namespace vta::sweeps
